// The variables a resource template's handler receives, read off the template's string literal
// type. Mirrors what UriTemplate.match produces for each RFC 6570 operator:
// - `{x}` and `{+x}` always match at least one character, so their first variable is present;
//   further variables of the same expression (`{x,y}`) may be missing.
// - `{#x}`, `{.x}` and `{/x}` may match nothing at all, so all their variables may be missing.
// - `{?x}`, `{&x}` and `{;x}` are looked up by name, so they may be missing.
// - An exploded variable (`{x*}`, `{?x*}`) is a list of strings; any other, prefixed (`{x:3}`)
//   or not, is one string.
import type { UriVariables } from './uri-template.js';

type Operator = '+' | '#' | '.' | '/' | ';' | '?' | '&';

type Entry = { name: string; value: string | string[]; required: boolean };

type Specs<S extends string> = S extends `${infer Head},${infer Rest}` ? [Head, ...Specs<Rest>] : [S];

type VarName<Spec extends string> = Spec extends `${infer N}*` ? N : Spec extends `${infer N}:${string}` ? N : Spec;

type VarEntries<Ss extends string[], FirstRequired extends boolean> = Ss extends [infer H extends string, ...infer T extends string[]]
  ? [{ name: VarName<H>; value: H extends `${string}*` ? string[] : string; required: FirstRequired }, ...VarEntries<T, false>]
  : [];

type ExpressionEntries<Body extends string> = Body extends `${infer Op extends Operator}${infer Rest}`
  ? VarEntries<Specs<Rest>, Op extends '+' ? true : false>
  : VarEntries<Specs<Body>, true>;

// Accumulates, so long templates stay within the compiler's tail-recursion allowance.
type Entries<T extends string, Acc extends Entry[] = []> = T extends `${string}{${infer Body}}${infer Rest}`
  ? Entries<Rest, [...Acc, ...ExpressionEntries<Body>]>
  : Acc;

type FromEntries<E extends Entry> = { [X in E as X['required'] extends true ? X['name'] : never]: X['value'] } & {
  [X in E as X['required'] extends true ? never : X['name']]?: X['value'];
};

type Flatten<T> = { [K in keyof T]: T[K] } & {};

/**
 * The variables `UriTemplate.match` returns for the template `T`, e.g. for
 * `'users://{id}/posts{?page,tags*}'`: `{ id: string; page?: string; tags?: string[] }`.
 * A template known only as `string` gives {@link UriVariables}.
 */
export type TemplateVariables<T extends string> = string extends T
  ? UriVariables
  : T extends unknown // one object per template when T is a union of them
    ? Flatten<FromEntries<Entries<T>[number]>>
    : never;
