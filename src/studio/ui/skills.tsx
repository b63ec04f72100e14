// The Skills panel (`io.modelcontextprotocol/skills`, SEP-2640): the server's skills as
// skills/list gives them (listing reads no file), and for one its frontmatter and files. Reading a
// file verifies it as a host must before using it (the studio does it: listed in the entry, its
// size, its sha256 digest, and for SKILL.md the frontmatter field by field): each file shows
// verified, or mismatch with the check that failed, and a mismatched file's content is not shown.
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ServerView, SkillFileCheck } from '../api-types.js';
import { post, serverPath } from './api.js';
import { Json } from './content.js';
import { matches } from './tools.js';

interface SkillInfo {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: Array<{ uri: string; digest: string; size: number }> | 'dynamic';
}

type Answer<T> = { result?: T; error?: { message: string } };

export function SkillsPanel({ server }: { server: ServerView }) {
  const [listed, setListed] = useState<{ declared: boolean; skills: SkillInfo[] } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [filter, setFilter] = useState('');
  const [chosen, setChosen] = useState<string | undefined>();
  const load = () => {
    setError(undefined);
    post<Answer<{ declared: boolean; skills: SkillInfo[] }>>(serverPath(server.name, 'skills/list'))
      .then((r) => (r.result ? setListed(r.result) : setError(r.error?.message)))
      .catch((e: Error) => setError(e.message));
  };
  useEffect(() => {
    if (server.state === 'connected') load();
  }, [server.name, server.state]);
  const shown = useMemo(() => (listed?.skills ?? []).filter((s) => matches(filter, s.uri, s.frontmatter.name, s.frontmatter.description)), [listed, filter]);
  const skill = listed?.skills.find((s) => s.uri === chosen);
  if (server.state !== 'connected') return <p class="muted">Not connected.</p>;
  return (
    <div class="split">
      <div class="list-pane">
        <input
          type="search"
          class="filter"
          aria-label="Filter skills"
          placeholder={`Filter ${listed?.skills.length ?? 0} skills`}
          value={filter}
          onInput={(e) => setFilter((e.currentTarget as HTMLInputElement).value)}
        />
        {error ? (
          <div class="error-text">
            skills/list: {error} <span class="muted">(a server without the skills extension answers so)</span>
          </div>
        ) : null}
        {listed && !listed.declared ? (
          <div class="muted small-print">The server does not declare io.modelcontextprotocol/skills, but answers skills/list.</div>
        ) : null}
        <ul class="skill-list" aria-label="Skills">
          {shown.map((s) => (
            <li key={s.uri}>
              <button type="button" class={`task-row${s.uri === chosen ? ' selected' : ''}`} data-skill={s.uri} onClick={() => setChosen(s.uri)}>
                <strong>{String(s.frontmatter.name ?? s.uri)}</strong>{' '}
                <span class="muted small-print">
                  {s.resources === 'dynamic' ? 'dynamic' : `${s.resources.length} file${s.resources.length === 1 ? '' : 's'}`}
                </span>
                <div class="row-sub">{String(s.frontmatter.description ?? '')}</div>
              </button>
            </li>
          ))}
        </ul>
        <button type="button" class="small" onClick={load}>
          List again
        </button>
      </div>
      <div class="detail-pane">{skill ? <SkillDetail key={skill.uri} server={server} skill={skill} /> : <p class="muted">Choose a skill.</p>}</div>
    </div>
  );
}

const LABEL: Record<SkillFileCheck['status'], string> = {
  verified: 'verified',
  mismatch: 'mismatch',
  unverifiable: 'unverifiable (dynamic)',
  unreadable: 'unreadable',
};

function SkillDetail({ server, skill }: { server: ServerView; skill: SkillInfo }) {
  const [checks, setChecks] = useState<Record<string, SkillFileCheck>>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const verify = async (what: { all?: boolean; file?: string }) => {
    setBusy(true);
    setError(undefined);
    try {
      const r = await post<Answer<{ files: SkillFileCheck[] }>>(serverPath(server.name, 'skills/verify'), { uri: skill.uri, skill, ...what });
      if (r.result) setChecks((c) => ({ ...c, ...Object.fromEntries(r.result!.files.map((f) => [f.uri, f])) }));
      else setError(r.error?.message);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  // The SKILL.md is what a person opens a skill for: read (and verified) at once.
  useEffect(() => void verify({}), [skill.uri]);
  const files = skill.resources === 'dynamic' ? [{ uri: skill.uri, digest: '', size: -1 }] : skill.resources;
  const done = Object.values(checks);
  const bad = done.filter((c) => c.status === 'mismatch' || c.status === 'unreadable').length;
  const md = checks[skill.uri];
  const base = skill.uri.replace(/SKILL\.md$/, '');
  return (
    <div class="skill-detail">
      <h2>
        {String(skill.frontmatter.name ?? skill.uri)} <span class="muted small-print">{skill.uri}</span>
      </h2>
      {skill.frontmatter.description ? <p class="desc">{String(skill.frontmatter.description)}</p> : null}
      <div class="actions">
        <button type="button" disabled={busy || skill.resources === 'dynamic'} onClick={() => void verify({ all: true })}>
          Verify every file
        </button>
        <span class="muted" data-testid="skill-summary">
          {done.length === 0
            ? 'not read yet'
            : `${done.length - bad} of ${done.length} read ${done.length === 1 ? 'file' : 'files'} match the entry${bad ? `, ${bad} do not` : ''}`}
        </span>
      </div>
      {error ? <div class="error-text">{error}</div> : null}
      <table class="skill-files">
        <thead>
          <tr>
            <th>File</th>
            <th>Size</th>
            <th>Digest (the entry's)</th>
            <th>Check</th>
          </tr>
        </thead>
        <tbody>
          {files.map((f) => {
            const c = checks[f.uri];
            return (
              <tr key={f.uri} data-file={f.uri}>
                <td>
                  <code>{f.uri.startsWith(base) ? f.uri.slice(base.length) : f.uri}</code>
                </td>
                <td>{f.size >= 0 ? f.size : ''}</td>
                <td>
                  <code title={f.digest}>{f.digest ? `${f.digest.slice(0, 19)}…` : 'none (dynamic)'}</code>
                </td>
                <td>
                  {c ? (
                    <span
                      class={`badge ${c.status === 'verified' ? 'good' : c.status === 'unverifiable' ? 'warn' : 'bad'}`}
                      data-check={c.status}
                      title={c.message}
                    >
                      {LABEL[c.status]}
                      {c.reason ? `: ${c.reason}` : ''}
                    </span>
                  ) : (
                    <button type="button" class="small" disabled={busy} onClick={() => void verify({ file: f.uri })}>
                      Verify
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {done
        .filter((c) => c.status === 'mismatch' || c.status === 'unreadable')
        .map((c) => (
          <div key={c.uri} class="error-text mismatch" role="alert">
            Not to be used: {c.message}
          </div>
        ))}
      <div class="section-title">Frontmatter (from skills/list)</div>
      <Json value={skill.frontmatter} />
      {md?.text !== undefined ? (
        <>
          <div class="section-title">
            SKILL.md {md.status === 'verified' ? <span class="badge good">verified</span> : <span class="badge warn">unverified</span>}
          </div>
          <pre class="text-block skill-md">{md.text}</pre>
        </>
      ) : null}
      {done
        .filter((c) => c.uri !== skill.uri && c.text !== undefined)
        .map((c) => (
          <details key={c.uri}>
            <summary>
              <code>{c.uri}</code> <span class="badge good">{LABEL[c.status]}</span>
            </summary>
            <pre class="text-block">{c.text}</pre>
          </details>
        ))}
    </div>
  );
}
