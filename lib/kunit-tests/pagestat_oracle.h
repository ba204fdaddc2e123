/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The oracle: the status of one address as stock 7.3.4 move_pages(2) finds it,
 * the per-address body of do_pages_stat_array() verbatim but for taking @addr
 * where it reads a pointer, so that a difference from it always means that the
 * walker changed behaviour. Context: Caller holds mmap_read_lock(@mm). Return:
 * the node of the folio there, -EFAULT (no VMA, a zero page) or -ENOENT.
 */
static int pagestat_oracle(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma;
	struct folio_walk fw;
	struct folio *folio;
	int err = -EFAULT;

	vma = vma_lookup(mm, addr);
	if (!vma)
		goto set_status;

	folio = folio_walk_start(&fw, vma, addr, FW_ZEROPAGE);
	if (folio) {
		if (is_zero_folio(folio) || is_huge_zero_folio(folio))
			err = -EFAULT;
		else if (folio_is_zone_device(folio))
			err = -ENOENT;
		else
			err = folio_nid(folio);
		folio_walk_end(&fw, vma);
	} else {
		err = -ENOENT;
	}
set_status:
	return err;
}
