/**
 * Checks JSON values against the `stripe` package's own TypeScript types (Stripe.Invoice, Stripe.Event, ...),
 * read with the TypeScript compiler API: no hand-written copy of Stripe's rules. A value conforms when
 *  - every property the type declares without `?` is present (null only where the type allows null),
 *  - every value has the declared primitive kind, and a string from a closed enum is one of its literals,
 *  - every property the value has is declared by the type (no invented fields),
 * recursively, through arrays, unions (`string | Stripe.Customer` for expandable ids; the member is picked by
 * `object`/`type` discriminants) and index signatures (metadata).
 */
import path from "node:path";
import ts from "typescript";

const ROOT = path.resolve(__dirname, "../..");
const PROBE = path.join(ROOT, "tests/api/__stripe_types_probe__.ts");

let cached: { checker: ts.TypeChecker; probe: ts.Type } | null = null;

/** The type checker over `import Stripe from "stripe"` and a probe type `{ [name]: Stripe.<name> }`. */
function program(names: readonly string[]): { checker: ts.TypeChecker; probe: ts.Type } {
  if (cached) return cached;
  const source = [
    `import Stripe from "stripe";`,
    `export type Probe = {`,
    ...names.map((name) => `  ${JSON.stringify(name)}: Stripe.${name};`),
    `};`,
  ].join("\n");
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    // Speed: only what the object types use (Array, Record), no @types, no doc comments.
    lib: ["lib.es5.d.ts"],
    types: [],
  };
  const host = ts.createCompilerHost(options, false);
  host.jsDocParsingMode = ts.JSDocParsingMode.ParseNone;
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) =>
    path.resolve(fileName) === PROBE
      ? ts.createSourceFile(fileName, source, languageVersion, true)
      : getSourceFile(fileName, languageVersion, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => path.resolve(fileName) === PROBE || fileExists(fileName);
  const prog = ts.createProgram([PROBE], options, host);
  const checker = prog.getTypeChecker();
  const file = prog.getSourceFile(PROBE);
  const alias = file?.statements.find(ts.isTypeAliasDeclaration);
  if (!alias) throw new Error("stripe-types: probe not found");
  const probe = checker.getTypeAtLocation(alias.name);
  if (checker.getPropertiesOfType(probe).length !== names.length) throw new Error("stripe-types: probe incomplete");
  cached = { checker, probe };
  return cached;
}

type Problems = string[];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

class Checker {
  constructor(private readonly checker: ts.TypeChecker) {}

  check(value: unknown, type: ts.Type, at: string, problems: Problems): void {
    const { checker } = this;
    const flags = type.flags;
    if (flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return;
    if (type.isUnion()) return void this.checkUnion(value, type.types, at, problems);
    if (value === undefined) return void problems.push(`${at}: undefined`);
    if (value === null) {
      if (!(flags & ts.TypeFlags.Null)) problems.push(`${at}: null, but the type is ${checker.typeToString(type)}`);
      return;
    }
    if (type.getSymbol()?.getName() === "Decimal" || type.aliasSymbol?.getName() === "Decimal") {
      // The SDK turns decimal strings into its Decimal class; on the wire it is a string.
      if (typeof value !== "string" && typeof value !== "object") problems.push(`${at}: ${JSON.stringify(value)} is not a decimal`);
      return;
    }
    if (flags & ts.TypeFlags.StringLiteral) {
      if (value !== (type as ts.StringLiteralType).value) problems.push(`${at}: ${JSON.stringify(value)}, expected ${checker.typeToString(type)}`);
      return;
    }
    if (flags & ts.TypeFlags.NumberLiteral) {
      if (value !== (type as ts.NumberLiteralType).value) problems.push(`${at}: ${JSON.stringify(value)}, expected ${checker.typeToString(type)}`);
      return;
    }
    if (flags & ts.TypeFlags.BooleanLiteral) {
      if (value !== (checker.typeToString(type) === "true")) problems.push(`${at}: ${JSON.stringify(value)}, expected ${checker.typeToString(type)}`);
      return;
    }
    if (flags & ts.TypeFlags.StringLike) return void (typeof value !== "string" && problems.push(`${at}: ${JSON.stringify(value)} is not a string`));
    if (flags & ts.TypeFlags.NumberLike) return void (typeof value !== "number" && problems.push(`${at}: ${JSON.stringify(value)} is not a number`));
    if (flags & ts.TypeFlags.BooleanLike) return void (typeof value !== "boolean" && problems.push(`${at}: ${JSON.stringify(value)} is not a boolean`));
    if (type.isIntersection()) {
      // OtherString = string & Record<never, never>
      if (type.types.some((t) => t.flags & ts.TypeFlags.String)) {
        if (typeof value !== "string") problems.push(`${at}: ${JSON.stringify(value)} is not a string`);
        return;
      }
      for (const part of type.types) this.check(value, part, at, problems);
      return;
    }
    if (checker.isArrayType(type) || checker.isTupleType(type)) {
      if (!Array.isArray(value)) return void problems.push(`${at}: ${JSON.stringify(value)} is not an array`);
      const [item] = checker.getTypeArguments(type as ts.TypeReference);
      if (item) for (const [i, element] of value.entries()) this.check(element, item, `${at}[${i}]`, problems);
      return;
    }
    if (flags & ts.TypeFlags.Object) return void this.checkObject(value, type, at, problems);
    problems.push(`${at}: cannot check type ${checker.typeToString(type)}`);
  }

  private checkObject(value: unknown, type: ts.Type, at: string, problems: Problems): void {
    const { checker } = this;
    if (!isPlainObject(value)) return void problems.push(`${at}: ${JSON.stringify(value)} is not an object (${checker.typeToString(type)})`);
    const declared = new Set<string>();
    for (const property of checker.getPropertiesOfType(type)) {
      const name = property.getName();
      declared.add(name);
      const optional = (property.flags & ts.SymbolFlags.Optional) !== 0;
      if (!(name in value)) {
        if (!optional) problems.push(`${at}.${name}: missing (${checker.typeToString(checker.getTypeOfSymbol(property))})`);
        continue;
      }
      this.check(value[name], checker.getTypeOfSymbol(property), `${at}.${name}`, problems);
    }
    const index = checker.getIndexInfosOfType(type).find((info) => info.keyType.flags & ts.TypeFlags.String);
    for (const [key, item] of Object.entries(value)) {
      if (declared.has(key)) continue;
      if (index) this.check(item, index.type, `${at}[${JSON.stringify(key)}]`, problems);
      else problems.push(`${at}.${key}: not in ${checker.typeToString(type)}`);
    }
  }

  private checkUnion(value: unknown, members: readonly ts.Type[], at: string, problems: Problems): void {
    const { checker } = this;
    const types = members.filter((t) => !(t.flags & ts.TypeFlags.Undefined));
    if (types.some((t) => t.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown))) return;
    if (value === undefined) return void problems.push(`${at}: undefined`);
    if (value === null) {
      if (!types.some((t) => t.flags & ts.TypeFlags.Null)) problems.push(`${at}: null, but the type is not nullable`);
      return;
    }
    const kind = (t: ts.Type): string => {
      if (t.flags & ts.TypeFlags.StringLike || (t.isIntersection() && t.types.some((p) => p.flags & ts.TypeFlags.String))) return "string";
      if (t.aliasSymbol?.getName() === "Decimal") return typeof value === "string" ? "string" : "object";
      if (t.flags & ts.TypeFlags.NumberLike) return "number";
      if (t.flags & ts.TypeFlags.BooleanLike) return "boolean";
      if (checker.isArrayType(t)) return "array";
      if (t.flags & ts.TypeFlags.Object) return "object";
      return "other";
    };
    const valueKind = Array.isArray(value) ? "array" : typeof value;
    const candidates = types.filter((t) => kind(t) === valueKind);
    if (candidates.length === 0) {
      return void problems.push(`${at}: ${JSON.stringify(value)} is none of ${types.map((t) => checker.typeToString(t)).join(" | ")}`);
    }
    if (valueKind === "string") {
      // A closed enum of literals, unless the union also takes any string (OtherString, string).
      if (candidates.some((t) => !(t.flags & ts.TypeFlags.StringLiteral))) {
        return;
      }
      if (!candidates.some((t) => (t as ts.StringLiteralType).value === value)) {
        problems.push(`${at}: ${JSON.stringify(value)} is none of ${candidates.map((t) => checker.typeToString(t)).join(" | ")}`);
      }
      return;
    }
    if (valueKind === "boolean") return; // true | false
    if (candidates.length === 1) return void this.check(value, candidates[0]!, at, problems);
    // Several object types: those whose discriminants (`object`, `type`) match, then the closest.
    const record = value as Record<string, unknown>;
    const matching = candidates.filter((candidate) =>
      ["object", "type"].every((name) => {
        const property = checker.getPropertyOfType(candidate, name);
        if (!property) return true;
        const declared = checker.getTypeOfSymbol(property);
        return !(declared.flags & ts.TypeFlags.StringLiteral) || (declared as ts.StringLiteralType).value === record[name];
      }),
    );
    let best: Problems | null = null;
    for (const candidate of matching.length > 0 ? matching : candidates) {
      const attempt: Problems = [];
      this.check(value, candidate, at, attempt);
      if (attempt.length === 0) return;
      if (!best || attempt.length < best.length) best = attempt;
    }
    problems.push(...(best ?? []));
  }
}

/** Builds the program once (seconds: the stripe package's declarations are large). */
export function loadStripeTypes(names: readonly string[]): void {
  program(names);
}

/** Problems of `value` as a `Stripe.<typeName>` (an empty list when it conforms). */
export function stripeTypeProblems(typeName: string, value: unknown, names: readonly string[]): string[] {
  const { checker, probe } = program(names);
  const property = checker.getPropertyOfType(probe, typeName);
  if (!property) throw new Error(`stripe-types: Stripe.${typeName} is not in the probe`);
  const type = checker.getTypeOfSymbol(property);
  const problems: Problems = [];
  new Checker(checker).check(value, type, typeName, problems);
  return problems;
}
