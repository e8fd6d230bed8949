// One source of a subscription (or of the live playground): its event type, the fields it delivers,
// its CEL filter and its sample rate, with the API's message about any of them beside it.
import { AUDIT_EVENT_TYPES, TRAFFIC_EVENT_TYPES, isTrafficEventType } from '../../../src/events/catalog.ts';
import type { ApiFailure, SourceInput, Subscription } from '../api/client.ts';
import { CelEditor } from './cel-editor.tsx';
import { FieldPicker } from './field-picker.tsx';
import { Field, fieldAria, inWords } from './parts.tsx';

const FILTER_HELP = 'Which records match: CEL over ev, reading only the filterable fields, e.g. ev.conn.server_port == 443 && cidr("10.0.0.0/8").containsIP(ev.conn.client_ip). Empty for every record.';

export interface SourceDraft {
  readonly type: string;
  readonly fields: readonly string[];
  readonly filter: string;
  /** As typed; empty for the default (every match). */
  readonly sampleRate: string;
}

export const NEW_SOURCE: SourceDraft = { type: 'tcp_connection_closed.v0', fields: [], filter: '', sampleRate: '' };

export function draftOf(source: Subscription['sources'][number]): SourceDraft {
  return { type: source.type, fields: source.fields ?? [], filter: source.filter ?? '', sampleRate: source.sample_rate === 1 ? '' : String(source.sample_rate) };
}

/** The source as the API takes it: an audit type sends neither fields nor a filter. */
export function sourceOf(d: SourceDraft): SourceInput {
  const rate = d.sampleRate.trim() === '' ? undefined : Number.isFinite(Number(d.sampleRate)) ? Number(d.sampleRate) : d.sampleRate;
  const traffic = isTrafficEventType(d.type) ? { fields: [...d.fields], ...(d.filter.trim() !== '' && { filter: d.filter }) } : {};
  return { type: d.type, ...traffic, ...(rate !== undefined && { sample_rate: rate }) } as SourceInput;
}

export interface SourceEditorProps {
  /** Ids of the controls start with it. */
  readonly id: string;
  readonly draft: SourceDraft;
  onChange(draft: SourceDraft): void;
  /** The field names of this source in the API's messages, e.g. "sources[0]." or "" for a tap. */
  readonly prefix: string;
  readonly failure: ApiFailure | undefined;
  readonly title: string;
  /** Offered when the source may be removed. */
  onRemove?(): void;
}

export function SourceEditor({ id, draft, onChange, prefix, failure, title, onRemove }: SourceEditorProps) {
  // Every problem the API names in this source, each beside its field in a person's words (the path below it).
  const said = (field: string, label: string): string | undefined => {
    const message = failure?.byField[`${prefix}${field}`];
    return message === undefined ? undefined : inWords(message, `${prefix}${field}`, label);
  };
  const typeError = said('type', 'Event type');
  const rateError = said('sample_rate', 'Sample rate');
  // A filter that does not compile is the first problem, with its line and column; else its sentence alone.
  const filterFailure = failure?.field === `${prefix}filter` ? failure : undefined;
  const filterError = filterFailure === undefined ? said('filter', 'Filter') : undefined;
  const traffic = isTrafficEventType(draft.type);
  const typeHelp = 'Traffic types deliver the fields you pick; audit types deliver the resource that changed.';
  const rateHelp = 'The share of matches delivered, from 2^-32 (about 2.3e-10) to 1; empty for all of them.';
  return (
    <fieldset class="group source" data-source-type={draft.type}>
      <legend>{title}</legend>
      <Field id={`${id}-type`} label="Event type" help={typeHelp} error={typeError} errorPath={`${prefix}type`} required>
        <select {...fieldAria(`${id}-type`, typeHelp, typeError)} value={draft.type} onChange={(e) => onChange({ ...draft, type: e.currentTarget.value, fields: [] })}>
          <optgroup label="Traffic">
            {TRAFFIC_EVENT_TYPES.map((t) => (
              <option value={t} key={t}>
                {t}
              </option>
            ))}
          </optgroup>
          <optgroup label="Audit">
            {AUDIT_EVENT_TYPES.map((t) => (
              <option value={t} key={t}>
                {t}
              </option>
            ))}
          </optgroup>
        </select>
      </Field>
      {traffic && (
        <>
          <FieldPicker id={`${id}-fields`} type={draft.type as (typeof TRAFFIC_EVENT_TYPES)[number]} chosen={draft.fields} onChange={(fields) => onChange({ ...draft, fields })} error={said('fields', 'Fields')} errorPath={`${prefix}fields`} />
          <CelEditor
            id={`${id}-filter`}
            value={draft.filter}
            onInput={(filter) => onChange({ ...draft, filter })}
            failure={filterFailure}
            message={filterError}
            errorPath={`${prefix}filter`}
            help={FILTER_HELP}
          />
        </>
      )}
      <Field id={`${id}-rate`} label="Sample rate" help={rateHelp} error={rateError} errorPath={`${prefix}sample_rate`}>
        <input type="number" min="0" max="1" step="any" inputMode="decimal" placeholder="1" {...fieldAria(`${id}-rate`, rateHelp, rateError)} value={draft.sampleRate} onInput={(e) => onChange({ ...draft, sampleRate: e.currentTarget.value })} />
      </Field>
      {onRemove !== undefined && (
        <button type="button" class="danger subtle" onClick={onRemove}>
          Remove this source
        </button>
      )}
    </fieldset>
  );
}
