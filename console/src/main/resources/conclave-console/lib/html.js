// htm bound to Preact's h: tagged templates instead of JSX, so the code runs without a build step.
import { h } from 'preact';
import htm from 'htm';

export const html = htm.bind(h);

/**
 * Props for a controlled text field: its state follows typing (input events) and any other change
 * of its value (change events, e.g. a form reset or an automated clear()).
 */
export function bindText(set) {
  const handler = (e) => set(e.currentTarget.value);
  return { onInput: handler, onChange: handler };
}
