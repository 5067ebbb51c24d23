// The Problems panel, read from the DOM. Audit diagnostics (a later issue) add cases here that expect
// specific findings on the deliberately defective example tasks.
export default [
  {
    name: 'Problems panel opens from the palette and is readable',
    async run({ wb, log }) {
      const rows = await wb.problems();
      // problems() fails unless the panel becomes visible; the rows are what the audit cases will check.
      log(`  ${rows.length} problem rows${rows.length ? `: ${rows.slice(0, 5).join(' | ')}` : ''}`);
      await wb.screenshot('problems');
    },
  },
];
