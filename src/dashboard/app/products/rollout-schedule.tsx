// A staged rollout raised over time: steps of a local date and time and a percentage, each raising the
// share of clients offered the version from its time on. Saved as the version's rollout_schedule;
// saving no steps removes the schedule. The server orders the steps and names what it refuses.
import { useState } from "preact/hooks";
import { formatDate } from "../dates.ts";
import type { ReleaseChange, Version } from "../wire.ts";

interface Step {
  /** As a datetime-local input holds it: the viewer's local time, to the minute. */
  at: string;
  percentage: number;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** An instant (ISO 8601, or milliseconds) as a datetime-local input shows it. */
function localInput(instant: string | number): string {
  const d = new Date(instant);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A datetime-local value as an instant; an unreadable one goes as typed, for the server to name it. */
function instant(local: string): string {
  const time = Date.parse(local);
  return Number.isNaN(time) ? local : new Date(time).toISOString();
}

/** The next step still to come, for the version's badges; null when none is. */
export function nextStep(version: Pick<Version, "rollout_schedule">, now = Date.now()) {
  const ahead = (version.rollout_schedule ?? []).filter((step) => Date.parse(step.at) > now);
  return ahead.sort((a, b) => Date.parse(a.at) - Date.parse(b.at))[0] ?? null;
}

export const nextStepText = (step: { at: string; percentage: number }) =>
  `${step.percentage} % from ${formatDate(step.at)}`;

interface Props {
  version: Version;
  busy: boolean;
  onSave: (change: ReleaseChange) => Promise<void>;
}

export function RolloutSchedule({ version, busy, onSave }: Props) {
  const [steps, setSteps] = useState<Step[]>(() =>
    (version.rollout_schedule ?? []).map((step) => ({
      at: localInput(step.at),
      percentage: step.percentage,
    })),
  );
  const id = (name: string, index: number) => `rollout-step-${name}-${version.id}-${index}`;
  const update = (index: number, change: Partial<Step>) =>
    setSteps(steps.map((step, i) => (i === index ? { ...step, ...change } : step)));
  const addStep = () => {
    // A day after the last step (or from now), one step up the usual ladder.
    const last = steps.at(-1);
    const from = last ? Date.parse(last.at) : Date.now();
    const at = localInput((Number.isNaN(from) ? Date.now() : from) + 86_400_000);
    setSteps([
      ...steps,
      { at, percentage: Math.min(100, (last?.percentage ?? version.rollout_percentage) + 25) },
    ]);
  };

  return (
    <form
      class="rollout-schedule"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void onSave({
          rollout_schedule: steps.map((step) => ({ at: instant(step.at), percentage: step.percentage })),
        });
      }}
    >
      <fieldset>
        <legend>Rollout schedule</legend>
        {steps.length === 0 && <p class="hint">No steps: the rollout stays where it is set.</p>}
        {steps.map((step, index) => (
          <div class="schedule-step" key={index}>
            <label for={id("at", index)}>{`Step ${index + 1} from`}</label>
            <input
              id={id("at", index)}
              type="datetime-local"
              value={step.at}
              required
              disabled={busy}
              onInput={(event) => update(index, { at: event.currentTarget.value })}
            />
            <label for={id("percentage", index)}>to</label>
            <input
              id={id("percentage", index)}
              type="number"
              min={0}
              max={100}
              value={step.percentage}
              disabled={busy}
              aria-label={`Step ${index + 1}, percent of clients`}
              onInput={(event) => update(index, { percentage: Number(event.currentTarget.value) || 0 })}
            />
            <span aria-hidden="true">%</span>
            <button
              type="button"
              disabled={busy}
              aria-label={`Remove step ${index + 1}`}
              onClick={() => setSteps(steps.filter((_, i) => i !== index))}
            >
              Remove
            </button>
          </div>
        ))}
        <div class="schedule-actions">
          <button type="button" disabled={busy || steps.length >= 20} onClick={addStep}>
            Add a step
          </button>
          <button type="submit" disabled={busy}>
            Save schedule
          </button>
        </div>
      </fieldset>
    </form>
  );
}
