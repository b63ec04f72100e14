// Compile-time assertions for tests of types; `npm run typecheck` is what runs them.

/** True exactly when A and B are the same type (optional and readonly modifiers included). */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** A type error unless T is `true`: `type _ = Expect<Equal<Got, Want>>`. */
export type Expect<T extends true> = T;
