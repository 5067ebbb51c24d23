export function $(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`band panel: element #${id} is missing from the layout`);
  return el;
}

/** Value of a <vscode-single-select> / <vscode-textfield> / <input> without importing their classes. */
export function valueOf(el: Element): string {
  return (el as unknown as { value?: unknown }).value as string ?? '';
}

/**
 * Fills a <vscode-single-select>. Options that are already there are kept: replacing them makes the
 * select re-read every option's innerText on slotchange, which forces a layout of the whole page.
 */
export function setOptions(select: HTMLElement, options: readonly { value: string; label: string }[], selected: string): void {
  const current = select.children;
  const same = current.length === options.length && options.every((o, i) => current[i]!.getAttribute('value') === o.value && current[i]!.textContent === o.label);
  if (same) {
    for (let i = 0; i < options.length; i++) current[i]!.toggleAttribute('selected', options[i]!.value === selected);
    (select as unknown as { value: string }).value = selected;
    return;
  }
  select.replaceChildren(...options.map((o) => {
    const opt = document.createElement('vscode-option');
    opt.setAttribute('value', o.value);
    opt.textContent = o.label;
    if (o.value === selected) opt.setAttribute('selected', '');
    return opt;
  }));
  (select as unknown as { value: string }).value = selected;
}
