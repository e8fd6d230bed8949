// A CEL filter editor: a textarea with line numbers, and the API's verdict on the filter marked at the
// line and column it reports (a caret under the column, the message beside it, a button to go there).
import { useRef } from 'preact/hooks';
import type { ApiFailure } from '../api/client.ts';

export interface CelEditorProps {
  readonly id: string;
  readonly value: string;
  onInput(value: string): void;
  /** The API's refusal of this filter; its details carry the line and column. */
  readonly failure: ApiFailure | undefined;
  /** The API's sentence about this filter when it was not the refusal's first problem (no line and column then). */
  readonly message?: string | undefined;
  /** The API's name of the field, under its error. */
  readonly errorPath?: string | undefined;
  readonly help: string;
}

/** What stands before the caret: the line's text up to the column, tabs kept (a tab is as wide as the line's own) and all else a space. */
export function caretIndent(line: string, column: number): string {
  return line.slice(0, Math.max(0, column - 1)).replace(/[^\t]/g, ' ');
}

export function CelEditor({ id, value, onInput, failure, message, errorPath, help }: CelEditorProps) {
  const area = useRef<HTMLTextAreaElement>(null);
  const lines = value.split('\n');
  const at = failure?.position;
  const markedLine = at === undefined ? undefined : (lines[at.line - 1] ?? '');
  const goToError = (): void => {
    const el = area.current;
    if (el === null || at === undefined) return;
    const offset = lines.slice(0, at.line - 1).reduce((n, l) => n + l.length + 1, 0) + at.column - 1;
    el.focus();
    el.setSelectionRange(offset, Math.min(value.length, offset + 1));
  };
  const error = failure?.problem.msg ?? message;
  const described = [`${id}-help`, error !== undefined ? `${id}-error` : ''].filter((s) => s !== '').join(' ');
  return (
    <div class={`field cel${error !== undefined ? ' invalid' : ''}`}>
      <label for={id}>Filter (CEL)</label>
      <div class="cel-input">
        <pre class="gutter" aria-hidden="true">
          {lines.map((_, i) => `${i + 1}\n`).join('')}
        </pre>
        <textarea
          id={id}
          ref={area}
          rows={Math.max(3, lines.length)}
          spellcheck={false}
          autoComplete="off"
          wrap="off"
          value={value}
          aria-describedby={described}
          aria-invalid={error !== undefined}
          onInput={(e) => onInput(e.currentTarget.value)}
          placeholder="ev.conn.server_port == 443"
        />
      </div>
      <p class="help" id={`${id}-help`}>
        {help}
      </p>
      {error !== undefined && (
        <div class="field-error cel-error" id={`${id}-error`} data-line={at?.line} data-column={at?.column}>
          <p>{error}</p>
          {errorPath !== undefined && (
            <span class="error-path">
              API field <code>{errorPath}</code>
            </span>
          )}
          {at !== undefined && markedLine !== undefined && (
            <>
              <pre class="cel-marker" aria-hidden="true">
                <code>
                  {markedLine}
                  {'\n'}
                  <span class="caret">{`${caretIndent(markedLine, at.column)}^`}</span>
                </code>
              </pre>
              <button type="button" class="link" onClick={goToError}>
                Go to line {at.line}, column {at.column}
              </button>
            </>
          )}
        </div>
      )}
    </div>
  );
}
