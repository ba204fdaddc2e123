/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe: what an address holds, read from the page tables, the PGD
 * down, without allocating a table, and then from the folio at a present
 * PTE or leaf. Context: Caller holds mmap_read_lock(@mm).
 */
static void pagestat_probe(struct mm_struct *mm, unsigned long addr,
			   struct pagestat_state *s)
{
	struct vm_area_struct *vma = vma_lookup(mm, addr);
	pgd_t *pgdp = pgd_offset(mm, addr);
	struct folio_walk fw;
	struct folio *folio;
	pud_t *pudp, pud;
	pmd_t *pmdp, pmd;
	pte_t *ptep, pte;
	swp_entry_t swp;
	p4d_t *p4dp;

	*s = (struct pagestat_state){ PAGESTAT_NOVMA };
	if (!vma)
		return;
	vma_pgtable_walk_begin(vma);
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
			  pud_special(pud) ? PAGESTAT_SPECIAL :
			  pud_devmap(pud) ? PAGESTAT_DEVMAP : 0;
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
		s->type = is_pmd_migration_entry(pmd) ? PAGESTAT_MIGRATION :
			  !pmd_present(pmd) ? PAGESTAT_SWAP :
			  pmd_special(pmd) ? PAGESTAT_SPECIAL :
			  pmd_devmap(pmd) ? PAGESTAT_DEVMAP : 0;
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
	if (pte_present(pte)) {
		s->what = 0;
		/* x86's devmap PTEs are special too */
		s->type = pte_devmap(pte) ? PAGESTAT_DEVMAP :
			  pte_special(pte) ? PAGESTAT_SPECIAL : 0;
		goto out;
	}
	swp = pte_to_swp_entry(pte);
	s->what = PAGESTAT_NONPRESENT;
	s->type = is_migration_entry(swp) ? PAGESTAT_MIGRATION :
		  is_device_private_entry(swp) ? PAGESTAT_DEV_PRIVATE : PAGESTAT_SWAP;
out:
	vma_pgtable_walk_end(vma);
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
