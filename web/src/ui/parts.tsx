// The console's small building blocks: a labelled field with its help and its error, a failure shown
// where it happened, the state badge, times, a confirmed delete, a copy button, a page's heading.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiFailure } from '../api/client.ts';

/** A failure in the API's words, announced to screen readers, where the action that failed is. */
export function Problem({ failure, id }: { failure: ApiFailure | undefined; id?: string }) {
  if (failure === undefined) return null;
  return (
    <p class="problem" role="alert" id={id} data-error-code={failure.problem.error_code}>
      {failure.problem.msg}
    </p>
  );
}

/**
 * The API's sentence about a field in a person's words, naming the field by its label: "The field
 * target.http.url is refused: …" becomes "URL is refused: …". The API's path is shown apart (FieldError).
 */
export function inWords(message: string, path: string, label: string): string {
  const named = `The field ${path} `;
  return message.startsWith(named) ? `${label} ${message.slice(named.length)}` : message;
}

/** A field's error: the sentence, and the API's name of the field on a details line. */
export function FieldError({ id, error, path }: { id: string; error: string; path?: string | undefined }) {
  return (
    <p class="field-error" id={`${id}-error`}>
      {error}
      {path !== undefined && (
        <span class="error-path">
          API field <code>{path}</code>
        </span>
      )}
    </p>
  );
}

/** A refused form's banner: the API's sentence for one problem, a count when each of several is shown at its field. */
export function FormProblem({ failure, id }: { failure: ApiFailure | undefined; id: string }) {
  if (failure === undefined) return null;
  const count = failure.problems.length;
  return (
    <p class="problem" role="alert" id={id} data-error-code={failure.problem.error_code} data-problems={count}>
      {count > 1 ? `Not saved: ${count} fields need a change, each marked below.` : failure.problem.msg}
    </p>
  );
}

export interface FieldProps {
  readonly id: string;
  readonly label: string;
  readonly help?: string | undefined;
  /** The API's message about this field, shown beside it. */
  readonly error?: string | undefined;
  /** The API's name of the field, shown under its error. */
  readonly errorPath?: string | undefined;
  readonly required?: boolean;
  /** The control, given `id`, `aria-describedby` and `aria-invalid` by the caller via fieldAria(). */
  readonly children: ComponentChildren;
}

/** The attributes a control of a Field carries so its label, help and error are read with it. */
export function fieldAria(id: string, help: string | undefined, error: string | undefined): Record<string, string | boolean> {
  const describedBy = [help !== undefined && help !== '' ? `${id}-help` : '', error !== undefined ? `${id}-error` : ''].filter((s) => s !== '').join(' ');
  return { id, ...(describedBy !== '' && { 'aria-describedby': describedBy }), 'aria-invalid': error !== undefined };
}

export function Field({ id, label, help, error, errorPath, required, children }: FieldProps) {
  return (
    <div class={`field${error !== undefined ? ' invalid' : ''}`}>
      <label for={id}>
        {label}
        {required === true && <span class="required"> (required)</span>}
      </label>
      {children}
      {help !== undefined && help !== '' && (
        <p class="help" id={`${id}-help`}>
          {help}
        </p>
      )}
      {error !== undefined && <FieldError id={id} error={error} path={errorPath} />}
    </div>
  );
}

export type DeliveryState = 'ok' | 'failing' | 'parked' | 'unknown';

const STATE_TEXT: Readonly<Record<DeliveryState, string>> = { ok: 'ok', failing: 'failing', parked: 'parked', unknown: 'no deliveries yet' };

export function StateBadge({ state }: { state: DeliveryState }) {
  return (
    <span class={`badge state-${state}`} data-state={state}>
      <span class="visually-hidden">state: </span>
      {STATE_TEXT[state]}
    </span>
  );
}

export function Pill({ tone, children }: { tone: 'on' | 'off' | 'info'; children: ComponentChildren }) {
  return <span class={`badge pill-${tone}`}>{children}</span>;
}

/** A moment as "12 s ago", with the exact time for a hover and for screen readers' time element. */
export function When({ iso, none = 'never' }: { iso: string | null | undefined; none?: string }) {
  if (iso === null || iso === undefined) return <span class="muted">{none}</span>;
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  const text = seconds < 60 ? `${seconds} s ago` : seconds < 3600 ? `${Math.round(seconds / 60)} min ago` : seconds < 86_400 ? `${Math.round(seconds / 3600)} h ago` : new Date(iso).toLocaleString();
  return (
    <time dateTime={iso} title={new Date(iso).toLocaleString()}>
      {text}
    </time>
  );
}

/** A delete behind a modal confirmation that names what goes; Escape or Cancel keeps it. */
export function DeleteButton({ what, onDelete, label = 'Delete' }: { what: string; onDelete(): Promise<void>; label?: string }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [failure, setFailure] = useState<ApiFailure | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const confirm = async (): Promise<void> => {
    setBusy(true);
    try {
      await onDelete();
      dialog.current?.close();
    } catch (err) {
      setFailure(err as ApiFailure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" class="danger" onClick={() => { setFailure(undefined); dialog.current?.showModal(); }} aria-label={`${label} ${what}`}>
        {label}
      </button>
      <dialog ref={dialog} aria-labelledby={`${what}-confirm-title`.replace(/\W+/g, '-')} class="confirm">
        <h2 id={`${what}-confirm-title`.replace(/\W+/g, '-')}>{label} {what}?</h2>
        <p>This cannot be undone.</p>
        <Problem failure={failure} />
        <div class="actions">
          <button type="button" onClick={() => dialog.current?.close()} autofocus>
            Cancel
          </button>
          <button type="button" class="danger" disabled={busy} onClick={() => void confirm()}>
            {label}
          </button>
        </div>
      </dialog>
    </>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  useEffect(() => {
    if (!done) return;
    const timer = setTimeout(() => setDone(false), 2000);
    return () => clearTimeout(timer);
  }, [done]);
  const copy = async (): Promise<void> => {
    await navigator.clipboard.writeText(text);
    setDone(true);
  };
  return (
    <button type="button" onClick={() => void copy()}>
      {label}
      <span aria-live="polite" class="copied">{done ? ' ✓ copied' : ''}</span>
    </button>
  );
}

/** A page's heading, focused when the page opens so a screen reader starts there. */
export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · edge-events console`;
    heading.current?.focus();
  }, [title]);
  return (
    <div class="page-header">
      <h1 tabIndex={-1} ref={heading}>
        {title}
      </h1>
      {children !== undefined && <div class="actions">{children}</div>}
    </div>
  );
}

/** Placeholder rows the height of the real ones, so the page keeps its shape while data loads. */
export function Placeholder({ rows = 3 }: { rows?: number }) {
  return (
    <div aria-busy="true" aria-label="Loading">
      {Array.from({ length: rows }, (_, i) => (
        <div class="card placeholder" key={i} />
      ))}
    </div>
  );
}
