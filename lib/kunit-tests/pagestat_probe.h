/* SPDX-License-Identifier: GPL-2.0 */
/* The kind of a non-present PTE or PMD, by its softleaf type */
static u8 pagestat_leaf_type(softleaf_t entry)
{
	return softleaf_is_migration(entry) ? PAGESTAT_MIGRATION :
	       softleaf_is_device_private(entry) ? PAGESTAT_DEV_PRIVATE :
	       softleaf_is_guard_marker(entry) ? PAGESTAT_GUARD : PAGESTAT_SWAP;
}

/*
 * The probe: what an address holds, read from the page tables, the PGD down,
 * without allocating a table (no hugetlb mapping here is shared, so none can
 * unshare a PMD table), then from the folio at a present PTE or leaf.
 * Context: Caller holds mmap_read_lock(@mm).
 */
static void pagestat_probe(struct mm_struct *mm, unsigned long addr, struct pagestat_state *s)
{
	struct vm_area_struct *vma = vma_lookup(mm, addr);
	pgd_t *pgdp = pgd_offset(mm, addr);
	struct folio_walk fw;
	struct folio *folio;
	pud_t *pudp, pud;
	pmd_t *pmdp, pmd;
	pte_t *ptep, pte;
	p4d_t *p4dp;

	*s = (struct pagestat_state){ PAGESTAT_NOVMA };
	if (!vma)
		return;
	*s = (struct pagestat_state){ PAGESTAT_HOLE, PAGESTAT_P4D };
	if (pgd_none(*pgdp))
		goto out;
	p4dp = p4d_offset(pgdp, addr);
	if (p4d_none(*p4dp))
		goto out;
	s->level = PAGESTAT_PUD;
	pudp = pud_offset(p4dp, addr);
	pud = pudp_get(pudp);
	if (pud_none(pud))
		goto out;
	if (!pud_present(pud) || pud_leaf(pud)) {
		/* x86's pud_present() is false for a PROT_NONE leaf */
		s->what = pud_present(pud) ? 0 : PAGESTAT_NONPRESENT;
		s->type = !pud_present(pud) ? PAGESTAT_SWAP :
			  pud_special(pud) ? PAGESTAT_SPECIAL : 0;
		goto out;
	}
	s->level = PAGESTAT_PMD;
	pmdp = pmd_offset(pudp, addr);
again:
	pmd = pmdp_get_lockless(pmdp);
	if (pmd_none(pmd))
		goto out;
	if (!pmd_present(pmd) || pmd_leaf(pmd)) {
		s->what = pmd_present(pmd) ? 0 : PAGESTAT_NONPRESENT;
		/* the huge zero PMD is special too: its folio decides */
		s->type = !pmd_present(pmd) ? pagestat_leaf_type(softleaf_from_pmd(pmd)) :
			  pmd_special(pmd) ? PAGESTAT_SPECIAL : 0;
		goto out;
	}
	s->level = PAGESTAT_PTE;
	ptep = pte_offset_map(pmdp, addr);
	if (!ptep)
		goto again;	/* no longer a table: look again */
	pte = ptep_get(ptep);
	pte_unmap(ptep);
	if (pte_none(pte))
		goto out;
	s->what = pte_present(pte) ? 0 : PAGESTAT_NONPRESENT;
	s->type = !pte_present(pte) ? pagestat_leaf_type(softleaf_from_pte(pte)) :
		  pte_special(pte) ? PAGESTAT_SPECIAL : 0;
out:
	if (s->what)
		return;
	s->what = PAGESTAT_NOPAGE;
	folio = folio_walk_start(&fw, vma, addr, FW_ZEROPAGE);
	if (!folio)
		return;
	s->type = 0;
	s->what = is_zero_folio(folio) || is_huge_zero_folio(folio) ?
		  PAGESTAT_ZERO : folio_is_zone_device(folio) ?
		  PAGESTAT_ZONE_DEVICE : PAGESTAT_FOLIO;
	s->nid = folio_nid(folio);
	s->order = folio_order(folio);
	folio_walk_end(&fw, vma);
}
