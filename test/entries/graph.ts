// The module graph of src/, read from the source: what each file imports (statically or by
// `import()`), and which Node globals it uses. Shared by the runtime-neutrality and lazy-loading
// tests; a file is parsed once.
import { readFileSync, realpathSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

// The checkout itself, also when the tests run compiled from a mirror of it (scripts/test-build.mjs),
// where package.json is a link to the checkout's.
export const ROOT = dirname(realpathSync(resolve(dirname(fileURLToPath(import.meta.url)), '../../package.json')));

export interface ModuleFacts {
  /** Relative imports, resolved to repository paths (src/...ts), with how they load. */
  local: Array<{ path: string; dynamic: boolean }>;
  /** Bare specifiers (packages and builtins), as written. */
  bare: Array<{ specifier: string; dynamic: boolean }>;
  /** Node globals used as values (`process`, `Buffer`, ...). */
  nodeGlobals: string[];
}

const NODE_GLOBALS = new Set(['process', 'Buffer', 'require', '__dirname', '__filename', 'setImmediate', 'clearImmediate', 'global']);
const BUILTINS = new Set(builtinModules);

export function isNodeBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || BUILTINS.has(specifier) || BUILTINS.has(specifier.split('/')[0]);
}

const cache = new Map<string, ModuleFacts>();

/** What `path` (relative to the repository root) imports and uses. Type-only imports do not load and are left out. */
export function factsOf(path: string): ModuleFacts {
  const known = cache.get(path);
  if (known) return known;
  const text = readFileSync(resolve(ROOT, path), 'utf8');
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const facts: ModuleFacts = { local: [], bare: [], nodeGlobals: [] };
  const add = (specifier: string, dynamic: boolean) => {
    if (specifier.startsWith('.')) facts.local.push({ path: relative(ROOT, resolve(ROOT, dirname(path), specifier)).replace(/\.js$/, '.ts'), dynamic });
    else facts.bare.push({ specifier, dynamic });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (!clause.name &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly) add(node.moduleSpecifier.text, false);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly =
        node.isTypeOnly || (node.exportClause !== undefined && ts.isNamedExports(node.exportClause) && node.exportClause.elements.every((e) => e.isTypeOnly));
      if (!typeOnly) add(node.moduleSpecifier.text, false);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) add(arg.text, true);
      else facts.bare.push({ specifier: '<computed import()>', dynamic: true });
    } else if (ts.isIdentifier(node) && NODE_GLOBALS.has(node.text) && isValueUse(node)) {
      if (!facts.nodeGlobals.includes(node.text)) facts.nodeGlobals.push(node.text);
    }
    // Types never run: `Buffer` in a type position is not a use of Node.
    if (ts.isTypeNode(node) && !ts.isExpressionWithTypeArguments(node)) return;
    ts.forEachChild(node, visit);
  };
  visit(sf);
  cache.set(path, facts);
  return facts;
}

/** An identifier that reads a global: not a property name, a declaration's name or a type. */
function isValueUse(id: ts.Identifier): boolean {
  const p = id.parent;
  if (ts.isPropertyAccessExpression(p) && p.name === id) return false;
  if (
    (ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p) || ts.isPropertySignature(p) || ts.isMethodDeclaration(p) || ts.isMethodSignature(p)) &&
    p.name === id
  )
    return false;
  if ((ts.isVariableDeclaration(p) || ts.isParameter(p) || ts.isFunctionDeclaration(p) || ts.isClassDeclaration(p) || ts.isBindingElement(p)) && p.name === id)
    return false;
  if (ts.isImportSpecifier(p) || ts.isExportSpecifier(p) || ts.isQualifiedName(p) || ts.isTypeReferenceNode(p)) return false;
  return true;
}

export interface Problem {
  /** The chain of modules from the entry to the one at fault. */
  chain: string[];
  what: string;
}

/**
 * Walks every module `entry` loads (following dynamic imports too unless `staticOnly`), and
 * reports each one that `judge` finds fault with, naming the chain that pulls it in.
 */
export function walk(
  entry: string,
  judge: (path: string, facts: ModuleFacts) => string[],
  options: { staticOnly?: boolean } = {},
): { seen: Set<string>; problems: Problem[] } {
  const seen = new Set<string>([entry]);
  const problems: Problem[] = [];
  const queue: string[][] = [[entry]];
  while (queue.length > 0) {
    const chain = queue.shift()!;
    const path = chain[chain.length - 1];
    const facts = factsOf(path);
    for (const what of judge(path, facts)) problems.push({ chain, what });
    for (const dep of facts.local) {
      if (options.staticOnly && dep.dynamic) continue;
      if (seen.has(dep.path)) continue;
      seen.add(dep.path);
      queue.push([...chain, dep.path]);
    }
  }
  return { seen, problems };
}

export function describe(problems: Problem[]): string {
  return problems.map((p) => `${p.what}\n    via ${p.chain.join(' -> ')}`).join('\n');
}
