// A form generated from a JSON Schema: nested objects, arrays (and multi-selects of enum items),
// enums (and oneOf-of-consts with titles), nullable fields however spelled, oneOf/anyOf with a
// branch picker, several types, defaults, string formats (date, date-time, time, email, uri),
// integer/number bounds, and a JSON editor for whatever is left (free objects such as `_meta`).
// Optional fields stay out of the value until set, and can be unset again.
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { branchFor, branchLabel, deref, initialValue, isObj, jsonType, splitNull, typesOf, unionOf, type Schema } from './schema.js';

export interface FieldProps {
  schema: Schema;
  root: Schema;
  value: unknown;
  onChange: (v: unknown) => void;
  label: string;
  required: boolean;
  /** Dotted path of the field, used as the input's name (`address.city`, `tags[0]`). */
  path: string;
}

const idOf = (path: string) => `f-${path.replace(/[^A-Za-z0-9_-]/g, '_')}`;

export function SchemaForm(p: { schema: Schema; value: Record<string, unknown>; onChange: (v: Record<string, unknown>) => void }) {
  const s = deref(p.schema, p.schema);
  const props = isObj(s.properties) ? s.properties : {};
  if (Object.keys(props).length === 0 && typesOf(s)[0] === 'object' && !s.additionalProperties) {
    return <p class="muted">No arguments.</p>;
  }
  return (
    <div class="schema-form">
      <ObjectBody schema={s} root={p.schema} value={p.value} onChange={(v) => p.onChange((v ?? {}) as Record<string, unknown>)} label="" required path="" />
    </div>
  );
}

export function SchemaField(p: FieldProps) {
  const s = deref(p.schema, p.root);
  const { base, nullable } = splitNull(s, p.root);
  const id = idOf(p.path);
  const types = typesOf(base);
  const hint = [types.join(' | '), typeof base.format === 'string' ? base.format : '', nullable ? 'nullable' : ''].filter(Boolean).join(', ');
  const title = typeof s.title === 'string' ? s.title : undefined;
  const compound = types[0] === 'object' || types[0] === 'array';
  return (
    <div class={`field${compound ? ' compound' : ''}`}>
      <div class="field-head">
        <label for={id}>
          {p.label}
          {p.required ? (
            <span class="req" title="required">
              *
            </span>
          ) : null}
        </label>
        {title && title !== p.label ? <span class="muted">{title}</span> : null}
        {hint ? <span class="hint">{hint}</span> : null}
        {nullable ? (
          <label class="null-toggle">
            <input
              type="checkbox"
              name={`${p.path}:null`}
              checked={p.value === null}
              onChange={(e) => p.onChange((e.currentTarget as HTMLInputElement).checked ? null : initialValue(base, p.root, true))}
            />
            null
          </label>
        ) : null}
        {!p.required && p.value !== undefined ? (
          <button type="button" class="link" title="Leave this argument out" onClick={() => p.onChange(undefined)}>
            unset
          </button>
        ) : null}
      </div>
      {typeof s.description === 'string' ? <div class="desc">{s.description}</div> : null}
      {p.value === null && nullable ? <div class="muted">null</div> : <Body {...p} schema={base} />}
    </div>
  );
}

function Body(p: FieldProps) {
  const s = p.schema;
  if ('const' in s) {
    return (
      <div>
        <code>{JSON.stringify(s.const)}</code>
        {p.value === undefined ? (
          <button type="button" class="link" onClick={() => p.onChange(s.const)}>
            set
          </button>
        ) : null}
      </div>
    );
  }
  const u = unionOf(s);
  if (u) {
    const consts = u.branches.map((b) => deref(b, p.root));
    if (consts.every((b) => 'const' in b)) {
      return (
        <EnumBody {...p} values={consts.map((b) => b.const)} labels={consts.map((b) => (typeof b.title === 'string' ? b.title : JSON.stringify(b.const)))} />
      );
    }
    return <UnionBody {...p} branches={u.branches} />;
  }
  if (Array.isArray(s.enum)) {
    const names = Array.isArray(s.enumNames) ? (s.enumNames as unknown[]).map(String) : undefined;
    return <EnumBody {...p} values={s.enum} labels={names} />;
  }
  const types = typesOf(s);
  if (types.length > 1) return <UnionBody {...p} branches={types.map((t) => ({ ...s, type: t }))} />;
  switch (types[0]) {
    case 'object':
      return isObj(s.properties) && Object.keys(s.properties).length > 0 ? <ObjectBody {...p} /> : <JsonBody {...p} />;
    case 'array':
      return <ArrayBody {...p} />;
    case 'string':
      return <StringBody {...p} />;
    case 'integer':
    case 'number':
      return <NumberBody {...p} integer={types[0] === 'integer'} />;
    case 'boolean':
      return <BooleanBody {...p} />;
    case 'null':
      return <code>null</code>;
    default:
      return <JsonBody {...p} />;
  }
}

function ObjectBody(p: FieldProps) {
  const props = (isObj(p.schema.properties) ? p.schema.properties : {}) as Record<string, Schema>;
  const required = Array.isArray(p.schema.required) ? (p.schema.required as string[]) : [];
  const obj = isObj(p.value) ? p.value : {};
  const set = (k: string, v: unknown) => {
    const next = { ...obj };
    if (v === undefined) delete next[k];
    else next[k] = v;
    p.onChange(next);
  };
  return (
    <div class={p.path === '' ? 'object-body' : 'object-body nested'}>
      {Object.entries(props).map(([k, ps]) => (
        <SchemaField
          key={k}
          schema={ps}
          root={p.root}
          value={obj[k]}
          onChange={(v) => set(k, v)}
          label={k}
          required={required.includes(k)}
          path={p.path ? `${p.path}.${k}` : k}
        />
      ))}
    </div>
  );
}

function ArrayBody(p: FieldProps) {
  const items = deref(p.schema.items, p.root);
  const list = Array.isArray(p.value) ? p.value : [];
  if (Array.isArray(items.enum)) {
    return (
      <div class="checks" id={idOf(p.path)}>
        {items.enum.map((v, i) => (
          <label key={i}>
            <input
              type="checkbox"
              name={`${p.path}[]`}
              value={String(v)}
              checked={list.some((x) => JSON.stringify(x) === JSON.stringify(v))}
              onChange={(e) => {
                const on = (e.currentTarget as HTMLInputElement).checked;
                p.onChange(on ? [...list, v] : list.filter((x) => JSON.stringify(x) !== JSON.stringify(v)));
              }}
            />
            {typeof v === 'string' ? v : JSON.stringify(v)}
          </label>
        ))}
      </div>
    );
  }
  return (
    <div class="array-body" id={idOf(p.path)}>
      {list.map((item, i) => (
        <div class="array-item" key={i}>
          <SchemaField
            schema={items}
            root={p.root}
            value={item}
            onChange={(v) => p.onChange(list.map((x, j) => (j === i ? v : x)))}
            label={`[${i}]`}
            required
            path={`${p.path}[${i}]`}
          />
          <button type="button" class="link danger" aria-label={`Remove item ${i}`} onClick={() => p.onChange(list.filter((_, j) => j !== i))}>
            remove
          </button>
        </div>
      ))}
      <button type="button" class="small" onClick={() => p.onChange([...list, initialValue(items, p.root, true)])}>
        + Add item
      </button>
    </div>
  );
}

function EnumBody(p: FieldProps & { values: unknown[]; labels?: string[] }) {
  const index = p.values.findIndex((v) => JSON.stringify(v) === JSON.stringify(p.value));
  return (
    <select
      id={idOf(p.path)}
      name={p.path}
      value={index < 0 ? '' : String(index)}
      onChange={(e) => {
        const i = (e.currentTarget as HTMLSelectElement).value;
        p.onChange(i === '' ? undefined : p.values[Number(i)]);
      }}
    >
      {!p.required || index < 0 ? <option value="">(not set)</option> : null}
      {p.values.map((v, i) => (
        <option key={i} value={String(i)}>
          {p.labels?.[i] ?? (typeof v === 'string' ? v : JSON.stringify(v))}
        </option>
      ))}
    </select>
  );
}

function UnionBody(p: FieldProps & { branches: Schema[] }) {
  const [chosen, setChosen] = useState(() => branchFor(p.value, p.branches, p.root));
  const branch = p.branches[Math.min(chosen, p.branches.length - 1)];
  return (
    <div class="union">
      <select
        name={`${p.path}:variant`}
        aria-label={`${p.label} variant`}
        value={String(chosen)}
        onChange={(e) => {
          const i = Number((e.currentTarget as HTMLSelectElement).value);
          setChosen(i);
          p.onChange(initialValue(p.branches[i], p.root, true));
        }}
      >
        {p.branches.map((b, i) => (
          <option key={i} value={String(i)}>
            {branchLabel(b, p.root, i)}
          </option>
        ))}
      </select>
      <Body {...p} schema={deref(branch, p.root)} />
    </div>
  );
}

const pad = (n: number) => String(n).padStart(2, '0');
/** An ISO date-time as a datetime-local input shows it (local time, to the minute or second). */
function toLocalInput(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

function StringBody(p: FieldProps) {
  const s = p.schema;
  const format = typeof s.format === 'string' ? s.format : '';
  const v = typeof p.value === 'string' ? p.value : '';
  const common = {
    id: idOf(p.path),
    name: p.path,
    placeholder: p.value === undefined ? '(not set)' : undefined,
    minLength: typeof s.minLength === 'number' ? s.minLength : undefined,
    maxLength: typeof s.maxLength === 'number' ? s.maxLength : undefined,
  };
  const hints = [
    typeof s.pattern === 'string' ? `pattern ${s.pattern}` : '',
    s.minLength !== undefined ? `min length ${s.minLength}` : '',
    s.maxLength !== undefined ? `max length ${s.maxLength}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
  let input: JSX.Element;
  if (format === 'date-time') {
    input = (
      <input
        type="datetime-local"
        step={1}
        {...common}
        value={v ? toLocalInput(v) : ''}
        onInput={(e) => {
          const raw = (e.currentTarget as HTMLInputElement).value;
          p.onChange(raw === '' ? (p.required ? '' : undefined) : new Date(raw).toISOString());
        }}
      />
    );
  } else if (format === 'textarea' || (typeof s.maxLength === 'number' && s.maxLength > 200) || v.includes('\n')) {
    input = <textarea rows={4} {...common} value={v} onInput={(e) => p.onChange((e.currentTarget as HTMLTextAreaElement).value)} />;
  } else {
    const type =
      ({ date: 'date', time: 'time', email: 'email', uri: 'url', url: 'url' } as Record<string, 'date' | 'time' | 'email' | 'url'>)[format] ?? 'text';
    input = <input type={type as 'text'} {...common} value={v} onInput={(e) => p.onChange((e.currentTarget as HTMLInputElement).value)} />;
  }
  return (
    <div>
      {input}
      {hints ? <div class="hint">{hints}</div> : null}
    </div>
  );
}

function NumberBody(p: FieldProps & { integer: boolean }) {
  const s = p.schema;
  const [text, setText] = useState(typeof p.value === 'number' ? String(p.value) : '');
  // A value changed from outside (reset, raw JSON mode) shows here.
  useEffect(() => {
    if (typeof p.value === 'number' && Number(text) !== p.value) setText(String(p.value));
    if (p.value === undefined && text !== '' && !Number.isNaN(Number(text))) setText('');
  }, [p.value]);
  const min = typeof s.minimum === 'number' ? s.minimum : undefined;
  const max = typeof s.maximum === 'number' ? s.maximum : undefined;
  return (
    <div>
      <input
        type="number"
        id={idOf(p.path)}
        name={p.path}
        step={p.integer ? 1 : 'any'}
        min={min}
        max={max}
        placeholder={p.value === undefined ? '(not set)' : undefined}
        value={text}
        onInput={(e) => {
          const raw = (e.currentTarget as HTMLInputElement).value;
          setText(raw);
          if (raw === '') p.onChange(undefined);
          else if (!Number.isNaN(Number(raw))) p.onChange(Number(raw));
        }}
      />
      {min !== undefined || max !== undefined ? (
        <div class="hint">{[min !== undefined ? `≥ ${min}` : '', max !== undefined ? `≤ ${max}` : ''].filter(Boolean).join(' ')}</div>
      ) : null}
    </div>
  );
}

function BooleanBody(p: FieldProps) {
  if (p.required) {
    return (
      <input
        type="checkbox"
        id={idOf(p.path)}
        name={p.path}
        checked={p.value === true}
        onChange={(e) => p.onChange((e.currentTarget as HTMLInputElement).checked)}
      />
    );
  }
  return (
    <select
      id={idOf(p.path)}
      name={p.path}
      value={p.value === undefined ? '' : String(p.value)}
      onChange={(e) => {
        const v = (e.currentTarget as HTMLSelectElement).value;
        p.onChange(v === '' ? undefined : v === 'true');
      }}
    >
      <option value="">(not set)</option>
      <option value="true">true</option>
      <option value="false">false</option>
    </select>
  );
}

/** Free JSON for what a form cannot say (an object without properties, a schema without a type). */
function JsonBody(p: FieldProps) {
  const [text, setText] = useState(p.value === undefined ? '' : JSON.stringify(p.value, null, 2));
  const [error, setError] = useState<string | undefined>();
  return (
    <div>
      <textarea
        class="code"
        rows={3}
        id={idOf(p.path)}
        name={p.path}
        placeholder={p.value === undefined ? '(not set) any JSON value' : undefined}
        value={text}
        onInput={(e) => {
          const raw = (e.currentTarget as HTMLTextAreaElement).value;
          setText(raw);
          if (raw.trim() === '') {
            setError(undefined);
            return p.onChange(undefined);
          }
          try {
            p.onChange(JSON.parse(raw));
            setError(undefined);
          } catch (err) {
            setError(err instanceof Error ? err.message : String(err));
          }
        }}
      />
      {error ? <div class="error-text">Not JSON: {error}</div> : null}
      {p.value !== undefined && !error ? <div class="hint">{jsonType(p.value)}</div> : null}
    </div>
  );
}
