import { dirname, join } from 'path';
import ts from 'typescript';

/**
 * A runtime validator derived from the official client's own type declarations: the `.d.ts` files of
 * `@mixedbread/sdk` are loaded with the TypeScript compiler and a JSON value is checked against the
 * declared type of an exported name (`StoreFile`, `StoreSearchResponse`, …) field by field — string
 * literals, numbers, nullability, arrays, nested interfaces, unions (discriminated by their literal
 * `type` when the value has one), index signatures. When the SDK changes, the checks change with it.
 *
 * Keys the declarations do not name are reported too (a strict client may drop or reject them), except
 * those listed in `extras` by interface name (the documented Larder additions).
 */
export class SdkTypes {
  private readonly checker: ts.TypeChecker;
  private readonly modules: ts.Symbol[];

  constructor(files: string[] = ['resources/stores/stores.d.ts', 'resources/stores/files.d.ts']) {
    const root = dirname(require.resolve('@mixedbread/sdk')); // the package root (its main is index.js)
    const paths = files.map((f) => join(root, f));
    const program = ts.createProgram(paths, {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: [],
      target: ts.ScriptTarget.ES2022,
    });
    this.checker = program.getTypeChecker();
    this.modules = paths.map((p) => {
      const sf = program.getSourceFile(p);
      const sym = sf && this.checker.getSymbolAtLocation(sf);
      if (!sym) throw new Error(`cannot load ${p}`);
      return sym;
    });
  }

  /** The declared type of an exported interface or type alias. */
  private typeNamed(name: string): ts.Type {
    for (const m of this.modules) {
      const sym = this.checker.getExportsOfModule(m).find((s) => s.name === name);
      if (sym)
        return this.checker.getDeclaredTypeOfSymbol(
          sym.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(sym) : sym,
        );
    }
    throw new Error(`the SDK declares no type named ${name}`);
  }

  /** The properties the SDK declares on the type `name`: each with whether it may be absent. */
  properties(name: string): Array<{ name: string; optional: boolean }> {
    return this.checker
      .getPropertiesOfType(this.typeNamed(name))
      .map((p) => ({ name: p.name, optional: !!(p.flags & ts.SymbolFlags.Optional) }));
  }

  /** Every way `value` departs from the SDK's type `name` (empty when it conforms), each as `path: problem`. */
  check(name: string, value: unknown, extras: Record<string, string[]> = {}): string[] {
    const out: string[] = [];
    this.visit(this.typeNamed(name), value, name, out, extras);
    return out;
  }

  private describe(t: ts.Type): string {
    return this.checker.typeToString(t);
  }

  private visit(t: ts.Type, v: unknown, path: string, out: string[], extras: Record<string, string[]>): void {
    const f = t.flags;
    if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return;
    if (t.isUnion()) return this.visitUnion(t, v, path, out, extras);
    if (f & ts.TypeFlags.Null) return void (v === null || out.push(`${path}: expected null, got ${JSON.stringify(v)}`));
    if (f & ts.TypeFlags.Undefined)
      return void (v === undefined || out.push(`${path}: expected nothing, got ${JSON.stringify(v)}`));
    if (t.isStringLiteral())
      return void (v === t.value || out.push(`${path}: expected ${JSON.stringify(t.value)}, got ${JSON.stringify(v)}`));
    if (t.isNumberLiteral())
      return void (v === t.value || out.push(`${path}: expected ${t.value}, got ${JSON.stringify(v)}`));
    if (f & ts.TypeFlags.BooleanLiteral) {
      const want = this.describe(t) === 'true';
      return void (v === want || out.push(`${path}: expected ${want}, got ${JSON.stringify(v)}`));
    }
    if (f & ts.TypeFlags.String)
      return void (typeof v === 'string' || out.push(`${path}: expected a string, got ${JSON.stringify(v)}`));
    if (f & ts.TypeFlags.Number)
      return void (
        (typeof v === 'number' && Number.isFinite(v)) ||
        out.push(`${path}: expected a number, got ${JSON.stringify(v)}`)
      );
    if (f & ts.TypeFlags.Boolean)
      return void (typeof v === 'boolean' || out.push(`${path}: expected a boolean, got ${JSON.stringify(v)}`));
    if (this.checker.isArrayType(t)) {
      if (!Array.isArray(v)) return void out.push(`${path}: expected an array, got ${JSON.stringify(v)}`);
      const [element] = this.checker.getTypeArguments(t as ts.TypeReference);
      v.forEach((x, i) => this.visit(element, x, `${path}[${i}]`, out, extras));
      return;
    }
    if (f & ts.TypeFlags.Object) return this.visitObject(t, v, path, out, extras);
    out.push(`${path}: the validator does not know the declared type ${this.describe(t)}`);
  }

  private visitUnion(t: ts.UnionType, v: unknown, path: string, out: string[], extras: Record<string, string[]>): void {
    // `undefined` (an optional field) and `null` only explain an absent or null value
    let members = t.types.filter(
      (m) => !(m.flags & ts.TypeFlags.Undefined && v !== undefined) && !(m.flags & ts.TypeFlags.Null && v !== null),
    );
    if (!members.length) members = t.types;
    // a discriminated union: the member whose literal `type` is the value's
    if (v && typeof v === 'object' && !Array.isArray(v) && typeof (v as { type?: unknown }).type === 'string') {
      const tag = (v as { type: string }).type;
      const tagged = members.filter((m) => {
        const p = m.getProperty('type');
        if (!p) return false;
        const pt = this.checker.getNonNullableType(this.checker.getTypeOfSymbol(p));
        return pt.isStringLiteral() && pt.value === tag;
      });
      const discriminated = members.some((m) => m.flags & ts.TypeFlags.Object && m.getProperty('type'));
      if (tagged.length) members = tagged;
      else if (discriminated)
        return void out.push(
          `${path}.type: ${JSON.stringify(tag)} is none of the declared variants of ${this.describe(t)}`,
        );
    }
    let best: string[] | null = null;
    for (const m of members) {
      const errs: string[] = [];
      this.visit(m, v, path, errs, extras);
      if (!errs.length) return;
      if (!best || errs.length < best.length) best = errs;
    }
    out.push(...(best ?? [`${path}: matches no member of ${this.describe(t)}`]));
  }

  private visitObject(t: ts.Type, v: unknown, path: string, out: string[], extras: Record<string, string[]>): void {
    if (!v || typeof v !== 'object' || Array.isArray(v))
      return void out.push(`${path}: expected an object (${this.describe(t)}), got ${JSON.stringify(v)}`);
    const obj = v as Record<string, unknown>;
    const props = this.checker.getPropertiesOfType(t);
    for (const p of props) {
      const optional = !!(p.flags & ts.SymbolFlags.Optional);
      if (!(p.name in obj) || obj[p.name] === undefined) {
        if (!optional) out.push(`${path}.${p.name}: required by the SDK, missing`);
        continue;
      }
      this.visit(this.checker.getTypeOfSymbol(p), obj[p.name], `${path}.${p.name}`, out, extras);
    }
    const index = this.checker.getIndexInfosOfType(t);
    const known = new Set(props.map((p) => p.name));
    const allowed = new Set(extras[t.symbol?.name ?? ''] ?? []);
    for (const k of Object.keys(obj)) {
      if (known.has(k)) continue;
      if (index.length) this.visit(index[0].type, obj[k], `${path}.${k}`, out, extras);
      else if (!allowed.has(k))
        out.push(`${path}.${k}: not declared by the SDK's ${t.symbol?.name ?? this.describe(t)}`);
    }
  }
}
