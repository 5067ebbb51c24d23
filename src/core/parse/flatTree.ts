import type { SyntaxNode } from './syntax';

/**
 * A tree-sitter tree copied into typed arrays (one slot per kept node, in pre-order), with node
 * objects made only when a rule reaches them. Copying every node into a JS object cost more than
 * the parse itself, and most of it came back as garbage collection (bench/RESULTS.md, "Audit at
 * scale"); rules touch a fraction of a test file's nodes, mostly through type queries, which are
 * answered here from the arrays without making the nodes they pass over.
 */

/** What the copy knows about a node type (one entry per slot of a language's table). */
export interface TypeInfo {
  readonly type: string;
  readonly named: boolean;
  /** A punctuation or keyword token no rule reads: left out of the copy. */
  readonly dropped: boolean;
}

/** Per language: the type of each slot, the field names, and cached slot masks per type name. */
export interface LanguageTable {
  readonly info: TypeInfo[];
  readonly fields: readonly (string | null)[];
  readonly masks: Map<string, Uint8Array>;
  readonly fieldIds: Map<string, number>;
}

/** Slots whose type is `type` (several symbols may share a name, e.g. aliases). */
export function typeMask(table: LanguageTable, type: string): Uint8Array {
  let m = table.masks.get(type);
  if (!m) {
    m = new Uint8Array(table.info.length);
    for (let s = 0; s < table.info.length; s++) if (table.info[s]?.type === type) m[s] = 1;
    table.masks.set(type, m);
  }
  return m;
}

/** The id of a field name in the language (-1 when it has none of that name). */
function fieldIdOf(table: LanguageTable, field: string): number {
  let id = table.fieldIds.get(field);
  if (id === undefined) {
    id = table.fields.indexOf(field);
    table.fieldIds.set(field, id);
  }
  return id;
}

const NO_CHILDREN: readonly SyntaxNode[] = Object.freeze([]);

export class FlatTree {
  private readonly nodes: (FlatNode | undefined)[];
  private readonly byType = new Map<string, FlatNode[]>();

  /**
   * `after[i]` is the slot after node i's subtree: its descendants are the slots i+1 … after[i]-1,
   * and its first child (if any) is i+1, the next sibling of a child j is after[j].
   */
  constructor(
    readonly table: LanguageTable,
    readonly slot: Uint16Array,
    readonly start: Int32Array,
    readonly end: Int32Array,
    readonly fieldId: Uint16Array,
    readonly parent: Int32Array,
    readonly after: Int32Array,
  ) {
    this.nodes = new Array<FlatNode | undefined>(slot.length);
  }

  get size(): number {
    return this.slot.length;
  }

  /** The node object of slot i, made once: rules compare nodes by identity and key maps by them. */
  node(i: number): FlatNode {
    let n = this.nodes[i];
    if (!n) { n = new FlatNode(this, i); this.nodes[i] = n; }
    return n;
  }

  /**
   * Descendants of node i of one type, in document order; `prune` (slot mask) stops at those nodes'
   * subtrees (the pruned node itself is still matched), as walk() with a skip predicate does.
   */
  scan(i: number, mask: Uint8Array, prune?: Uint8Array): FlatNode[] {
    const out: FlatNode[] = [];
    const stop = this.after[i];
    for (let j = i + 1; j < stop;) {
      const s = this.slot[j];
      if (mask[s] === 1) out.push(this.node(j));
      j = prune !== undefined && prune[s] === 1 ? this.after[j] : j + 1;
    }
    return out;
  }

  /** The first child of node i held under `field`, as children.find() by field gives it. */
  childByField(i: number, field: string): FlatNode | undefined {
    const id = fieldIdOf(this.table, field);
    if (id < 0) return undefined;
    const stop = this.after[i];
    for (let j = i + 1; j < stop; j = this.after[j]) if (this.fieldId[j] === id) return this.node(j);
    return undefined;
  }

  /** Every node of a type under the root, made and cached once per tree (rules ask roots often). */
  ofType(type: string): readonly FlatNode[] {
    let list = this.byType.get(type);
    if (!list) {
      list = this.scan(0, typeMask(this.table, type));
      this.byType.set(type, list);
    }
    return list;
  }
}

/** One node, read from its tree's arrays; children are listed on first use and kept. */
export class FlatNode implements SyntaxNode {
  private kids: readonly SyntaxNode[] | undefined = undefined;

  constructor(readonly owner: FlatTree, readonly index: number) {}

  get type(): string {
    return this.owner.table.info[this.owner.slot[this.index]].type;
  }

  get named(): boolean {
    return this.owner.table.info[this.owner.slot[this.index]].named;
  }

  get start(): number {
    return this.owner.start[this.index];
  }

  get end(): number {
    return this.owner.end[this.index];
  }

  get field(): string | null {
    return this.owner.table.fields[this.owner.fieldId[this.index]] ?? null;
  }

  get parent(): SyntaxNode | null {
    const p = this.owner.parent[this.index];
    return p < 0 ? null : this.owner.node(p);
  }

  get children(): readonly SyntaxNode[] {
    if (this.kids === undefined) {
      const t = this.owner;
      const stop = t.after[this.index];
      if (stop === this.index + 1) this.kids = NO_CHILDREN;
      else {
        const out: SyntaxNode[] = [];
        for (let j = this.index + 1; j < stop; j = t.after[j]) out.push(t.node(j));
        this.kids = out;
      }
    }
    return this.kids;
  }
}

/** Growable columns the copy appends to, in pre-order. */
export class FlatBuilder {
  private cap: number;
  private n = 0;
  private slot: Uint16Array;
  private start: Int32Array;
  private end: Int32Array;
  private fieldId: Uint16Array;
  private parent: Int32Array;
  private after: Int32Array;

  constructor(private readonly table: LanguageTable, expected: number) {
    this.cap = Math.max(16, expected);
    this.slot = new Uint16Array(this.cap);
    this.start = new Int32Array(this.cap);
    this.end = new Int32Array(this.cap);
    this.fieldId = new Uint16Array(this.cap);
    this.parent = new Int32Array(this.cap);
    this.after = new Int32Array(this.cap);
  }

  /** Appends a node (before its children) and returns its slot index. */
  open(parent: number, slot: number, start: number, end: number, fieldId: number): number {
    if (this.n === this.cap) this.grow();
    const i = this.n++;
    this.slot[i] = slot;
    this.start[i] = start;
    this.end[i] = end;
    this.fieldId[i] = fieldId;
    this.parent[i] = parent;
    return i;
  }

  /** Called after node i's children were appended. */
  close(i: number): void {
    this.after[i] = this.n;
  }

  finish(): FlatTree {
    const n = this.n;
    return new FlatTree(this.table, this.slot.slice(0, n), this.start.slice(0, n), this.end.slice(0, n), this.fieldId.slice(0, n), this.parent.slice(0, n), this.after.slice(0, n));
  }

  private grow(): void {
    this.cap *= 2;
    const grow16 = (a: Uint16Array): Uint16Array => { const b = new Uint16Array(this.cap); b.set(a); return b; };
    const grow32 = (a: Int32Array): Int32Array => { const b = new Int32Array(this.cap); b.set(a); return b; };
    this.slot = grow16(this.slot);
    this.start = grow32(this.start);
    this.end = grow32(this.end);
    this.fieldId = grow16(this.fieldId);
    this.parent = grow32(this.parent);
    this.after = grow32(this.after);
  }
}
