// The fields a traffic source delivers, picked from the event catalogue (src/events/catalog.ts, which
// docs/events.md lists): grouped by their first name part, each with its type, its description, and
// whether a filter may read it.
import { TRAFFIC_FIELDS, type FieldSpec, type TrafficEventType } from '../../../src/events/catalog.ts';
import { FieldError } from './parts.tsx';

export function fieldGroups(type: TrafficEventType): [string, FieldSpec[]][] {
  const groups = new Map<string, FieldSpec[]>();
  for (const f of TRAFFIC_FIELDS[type]) {
    const group = f.name.split('.')[0] ?? f.name;
    groups.set(group, [...(groups.get(group) ?? []), f]);
  }
  return [...groups];
}

export interface FieldPickerProps {
  readonly id: string;
  readonly type: TrafficEventType;
  readonly chosen: readonly string[];
  onChange(fields: string[]): void;
  readonly error: string | undefined;
  /** The API's name of the field, under its error. */
  readonly errorPath?: string | undefined;
}

export function FieldPicker({ id, type, chosen, onChange, error, errorPath }: FieldPickerProps) {
  const toggle = (name: string, on: boolean): void => onChange(on ? TRAFFIC_FIELDS[type].map((f) => f.name).filter((n) => n === name || chosen.includes(n)) : chosen.filter((n) => n !== name));
  return (
    <fieldset class="group field-picker" id={id} aria-describedby={error !== undefined ? `${id}-help ${id}-error` : `${id}-help`}>
      <legend>Fields</legend>
      <p class="help" id={`${id}-help`}>
        What each event carries, nested by the dotted name. {chosen.length} of {TRAFFIC_FIELDS[type].length} chosen. Fields marked “filterable” are the ones a filter may read.
      </p>
      <div class="field-groups">
        {fieldGroups(type).map(([group, fields]) => (
          <fieldset class="field-group" key={group}>
            <legend>{group}</legend>
            {fields.map((f) => {
              const box = `${id}-${f.name.replaceAll('.', '-')}`;
              return (
                <div class="field checkbox" key={f.name}>
                  <input type="checkbox" id={box} value={f.name} checked={chosen.includes(f.name)} onChange={(e) => toggle(f.name, e.currentTarget.checked)} aria-describedby={`${box}-about`} />
                  <label for={box}>
                    <code>{f.name}</code>
                  </label>
                  <span class="about" id={`${box}-about`}>
                    <span class="type">{f.type}</span>
                    {f.filterable && <span class="badge pill-info">filterable</span>} {f.description}
                  </span>
                </div>
              );
            })}
          </fieldset>
        ))}
      </div>
      {error !== undefined && <FieldError id={id} error={error} path={errorPath} />}
    </fieldset>
  );
}
