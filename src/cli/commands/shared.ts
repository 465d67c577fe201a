// Finding the Harbor object a command names: by id, or by its exact name (Harbor's name filters
// match parts of names; the exact one is picked here). A name that matches nothing is a clear error.
import { CliError } from "../errors.ts";

/** The id of the object named `text`: a number is an id, anything else a name looked up with `find`. */
export async function idOf(
  text: string,
  what: string,
  find: (name: string) => Promise<Array<{ id?: number; name?: string }>>,
): Promise<number> {
  if (/^\d+$/.test(text)) return Number(text);
  const found = (await find(text)).find((o) => o.name === text);
  if (found?.id === undefined) throw new CliError(`Harbor has no ${what} named "${text}"`);
  return found.id;
}

/** Harbor's "never" time (an execution still running) as absent. */
export function time(t: string | undefined): string | undefined {
  return t && !t.startsWith("0001-01-01") ? t : undefined;
}
