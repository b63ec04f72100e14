// The script a sandbox runs before the program: it takes the host's three functions off the
// global object (the program reaches them only through what this builds), fixes the clock at
// the moment the host gave, and makes `console` and one global object per API namespace. Only
// strings cross the boundary: arguments leave as JSON text, results come back as JSON text,
// so no object of one realm is ever seen by the other.

/** The host functions the prelude takes (and deletes) from the global object. */
export const HOST_CALL = '__mcpkit_call';
export const HOST_PRINT = '__mcpkit_print';
export const HOST_SETTLE = '__mcpkit_settle';
/** The one-shot function the program's wrapper calls with the program's body. */
export const RUN = '__mcpkit_run';
/** The file name programs run under: error positions are looked up by it. */
export const PROGRAM_FILE = 'program.js';

export interface PreludeParams {
  /** What `Date.now()` and `new Date()` give, ms since the epoch. */
  now: number;
  /** Function names by namespace. */
  api: ReadonlyMap<string, readonly string[]>;
  /** Characters of printed output the program may produce. */
  outputChars: number;
  /** Characters of the returned value's JSON kept. */
  valueChars: number;
}

export function prelude(p: PreludeParams): string {
  const api = JSON.stringify([...p.api]);
  return `(function (g) {
  'use strict';
  const call = g.${HOST_CALL}, print = g.${HOST_PRINT}, settle = g.${HOST_SETTLE};
  delete g.${HOST_CALL}; delete g.${HOST_PRINT}; delete g.${HOST_SETTLE};
  const stringify = JSON.stringify, parse = JSON.parse, E = Error, S = String;
  const then = Promise.prototype.then, apply = Reflect.apply, construct = Reflect.construct;
  const define = Object.defineProperty, freeze = Object.freeze;
  const hidden = (value) => ({ value, writable: true, configurable: true, enumerable: false });
  const NOW = ${JSON.stringify(p.now)}, VALUE_CHARS = ${JSON.stringify(p.valueChars)};
  let budget = ${JSON.stringify(p.outputChars)};

  // The clock stands still at the moment the host gave: no other time reaches the program.
  const RealDate = Date;
  function FixedDate(...args) {
    if (new.target === undefined) return S(new RealDate(NOW));
    return construct(RealDate, args.length === 0 ? [NOW] : args, new.target);
  }
  define(FixedDate, 'prototype', { value: RealDate.prototype });
  define(RealDate.prototype, 'constructor', hidden(FixedDate));
  FixedDate.now = () => NOW;
  FixedDate.parse = RealDate.parse;
  FixedDate.UTC = RealDate.UTC;
  define(g, 'Date', hidden(FixedDate));

  const show = (v) => {
    if (typeof v === 'string') return v;
    try {
      if (v instanceof E) return S(v.name) + ': ' + S(v.message);
      const s = stringify(v);
      return s === undefined ? S(v) : s;
    } catch (e) {
      try { return S(v); } catch (e2) { return '[a value that cannot be shown]'; }
    }
  };
  const out = (level) => function (...args) {
    if (budget <= 0) { budget = print(level, ''); return; }
    const parts = [];
    for (let i = 0; i < args.length; i++) parts.push(show(args[i]));
    let line = parts.join(' ');
    if (line.length > budget) line = line.slice(0, budget + 1);
    budget = print(level, line);
  };
  define(g, 'console', hidden(freeze({ log: out('log'), info: out('info'), debug: out('debug'), warn: out('warn'), error: out('error') })));

  // A failed call throws where the program made it: the stack is the one of the call site.
  const failed = (site) => (e) => {
    const err = new E(S(e && e.message));
    err.name = S((e && e.name) || 'Error');
    err.stack = site.stack;
    throw err;
  };
  const make = (ns, fn) => function (args) {
    const site = new E();
    let text = null;
    try { text = args === undefined ? '{}' : stringify(args); } catch (e) { text = null; }
    return apply(then, call(ns, fn, text === undefined ? null : text), [parse, failed(site)]);
  };
  // Reading a function the API does not have throws at that line, saying so (rather than the
  // engine's bare "not a function" at the call); 'then' and symbols read as absent.
  const has = Object.prototype.hasOwnProperty, TE = TypeError;
  for (const [ns, fns] of ${api}) {
    const o = {};
    for (const fn of fns) o[fn] = make(ns, fn);
    const api = new Proxy(freeze(o), {
      get(t, k) {
        if (typeof k !== 'string' || k === 'then' || apply(has, t, [k])) return t[k];
        const list = fns.length > 12 ? fns.slice(0, 12).join(', ') + ' and ' + (fns.length - 12) + ' more' : fns.join(', ') || 'none';
        throw new TE(ns + '.' + k + ' is not a function of the API: ' + ns + ' has ' + list);
      },
    });
    define(g, ns, hidden(api));
  }

  define(g, '${RUN}', hidden(function (body) {
    delete g.${RUN};
    const done = (v) => {
      let text;
      if (v !== undefined) {
        try { text = stringify(v); } catch (e) { text = undefined; }
        if (text === undefined) text = stringify(show(v));
        if (text.length > VALUE_CHARS) text = text.slice(0, VALUE_CHARS + 1);
      }
      settle(true, text);
    };
    const fail = (e) => {
      let name = 'Error', message = '', stack = '';
      try {
        if (e instanceof E) { name = S(e.name); message = S(e.message); stack = e.stack === undefined ? '' : S(e.stack); }
        else { name = 'Thrown'; message = show(e); }
      } catch (x) { message = 'a value that cannot be shown was thrown'; }
      settle(false, name, message, stack);
    };
    apply(then, body(), [done, fail]);
  }));
})(globalThis);
`;
}

/** The program inside its wrapper: line N of the program is line N + 1 of the file. */
export function wrapProgram(code: string): string {
  return `${RUN}(async () => {\n${code}\n});`;
}
