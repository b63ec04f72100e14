// The gateway policy the benchmarks run "with API keys, visibility rules and a rate limit on"
// (issue 25): three keys (callers send `Authorization: Bearer bench-key-1`), rules that let the
// `dev` group see `b_*` and hide `*_delete*` from everyone, and a per-caller fixed-window limit
// far above what the load reaches, so every call is counted and none is refused.
export const BENCH_POLICY = {
  auth: {
    apiKeys: {
      [`sha256:${sha('bench-key-1')}`]: { id: 'alice', groups: ['dev'] },
      [`sha256:${sha('bench-key-2')}`]: { id: 'bob', groups: ['ops'] },
      [`sha256:${sha('bench-key-3')}`]: { id: 'carol', groups: ['dev', 'ops'] },
    },
  },
  visibility: {
    rules: [{ when: { group: 'dev' }, allow: ['b_*'] }, { when: { group: 'ops' }, allow: ['b_search*'] }, { deny: ['*_delete*'] }],
  },
  limits: { rules: [{ name: 'per-user', limit: 100_000_000, windowMs: 60_000 }] },
};

function sha(text) {
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(text).digest('hex');
}
