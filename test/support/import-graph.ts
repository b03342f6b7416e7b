/**
 * The import graph of the TypeScript sources, read with the compiler's parser: each file's static
 * imports and re-exports, relative ones resolved to the .ts file they name, packages by name, and
 * whether an import is type-only (erased: it loads nothing at run time). Dynamic `import()` calls
 * are kept apart: they load only when the code that makes them runs. test/shared/layers.test.ts
 * reads folders from it, test/shared/thread-roles.test.ts what each thread's entry reaches.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { packageRoot } from '../../src/shared/package-root.js';

/** One import of a file: `target` is a path relative to the package root (a .ts file) or a package name. */
export interface Import {
  target: string;
  /** `import type` / `export type`: erased by the compiler. */
  typeOnly: boolean;
  /** `import('…')`: loaded when the call runs, not with the file. */
  dynamic: boolean;
}

/** Every .ts file under `dir` (relative to the package root), as paths relative to the package root. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(join(packageRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** A specifier as the graph names it: a relative one as the .ts source its .js names. */
function targetOf(file: string, specifier: string): string {
  if (!specifier.startsWith('.')) return specifier;
  const path = relative(packageRoot, join(packageRoot, dirname(file), specifier));
  return path.endsWith('.js') ? `${path.slice(0, -3)}.ts` : path;
}

/** The imports of `file` (relative to the package root). */
export function importsOf(file: string): Import[] {
  const text = readFileSync(join(packageRoot, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false);
  const found: Import[] = [];
  const add = (specifier: ts.Expression, typeOnly: boolean, dynamic: boolean): void => {
    if (ts.isStringLiteral(specifier))
      found.push({ target: targetOf(file, specifier.text), typeOnly, dynamic });
  };
  const visit = (node: ts.Node): void => {
    // `import { type A } from` is not type-only: with verbatimModuleSyntax it still loads the module
    if (ts.isImportDeclaration(node))
      add(node.moduleSpecifier, node.importClause?.isTypeOnly ?? false, false);
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined)
      add(node.moduleSpecifier, node.isTypeOnly, false);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      add(node.argument.literal, true, false);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      add(node.arguments[0]!, false, true);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Which imports a walk follows: static value imports always, type-only and dynamic ones when asked. */
export interface Follow {
  types?: boolean;
  dynamic?: boolean;
  /** Imports not followed, each written `importer -> imported`. */
  skip?: ReadonlySet<string>;
}

/** The import graph of the package's sources, each file read once. */
export class ImportGraph {
  readonly #imports = new Map<string, Import[]>();

  /** The imports of a source file; none for a package or a file that is not TypeScript. */
  importsOf(file: string): Import[] {
    if (!file.endsWith('.ts')) return [];
    let imports = this.#imports.get(file);
    if (imports === undefined) this.#imports.set(file, (imports = importsOf(file)));
    return imports;
  }

  /** Everything `roots` reach, each with the file that first imported it (undefined for a root). */
  reach(roots: readonly string[], follow: Follow = {}): Map<string, string | undefined> {
    const importer = new Map<string, string | undefined>(roots.map((root) => [root, undefined]));
    const queue = [...roots];
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      for (const { target, typeOnly, dynamic } of this.importsOf(file)) {
        if ((typeOnly && !follow.types) || (dynamic && !follow.dynamic) || importer.has(target)) continue;
        if (follow.skip?.has(`${file} -> ${target}`)) continue;
        importer.set(target, file);
        queue.push(target);
      }
    }
    return importer;
  }
}

/** The chain of imports from a root to `file` in a reach's answer, for a failure message. */
export function chainTo(reached: ReadonlyMap<string, string | undefined>, file: string): string {
  const links: string[] = [];
  for (let at: string | undefined = file; at !== undefined; at = reached.get(at)) links.unshift(at);
  return links.join(' -> ');
}

/**
 * What `file` loads with a CommonJS `require` (one made by createRequire) or `process.dlopen`: a
 * package by its name, or null for a path computed at run time (how a native addon's .node file
 * is loaded).
 */
export function requiresOf(file: string): (string | null)[] {
  const text = readFileSync(join(packageRoot, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false);
  const loads: (string | null)[] = [];
  const isRequire = (callee: ts.Expression): boolean =>
    (ts.isIdentifier(callee) && callee.text === 'require') ||
    (ts.isCallExpression(callee) &&
      ts.isIdentifier(callee.expression) &&
      callee.expression.text === 'createRequire') ||
    (ts.isPropertyAccessExpression(callee) && callee.name.text === 'dlopen');
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && isRequire(node.expression)) {
      const [argument] = node.arguments;
      const isPath = ts.isPropertyAccessExpression(node.expression); // dlopen(module, path)
      loads.push(argument !== undefined && !isPath && ts.isStringLiteral(argument) ? argument.text : null);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return loads;
}
