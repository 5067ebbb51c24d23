export function $(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`band panel: element #${id} is missing from the layout`);
  return el;
}

/** Value of a <vscode-single-select> / <vscode-textfield> / <input> without importing their classes. */
export function valueOf(el: Element): string {
  return (el as unknown as { value?: unknown }).value as string ?? '';
}

export function setOptions(select: HTMLElement, options: readonly { value: string; label: string }[], selected: string): void {
  select.replaceChildren(...options.map((o) => {
    const opt = document.createElement('vscode-option');
    opt.setAttribute('value', o.value);
    opt.textContent = o.label;
    if (o.value === selected) opt.setAttribute('selected', '');
    return opt;
  }));
  (select as unknown as { value: string }).value = selected;
}
