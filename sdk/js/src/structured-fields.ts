// Just enough of RFC 8941 structured-field dictionaries to read Signature-Input, Signature and
// Content-Digest: the members' raw values, split at top-level commas (not inside quotes or an inner
// list). What a member's value must look like is checked by the caller against what depot sends.

/** The dictionary's members as [name, raw value] in order; null when it is not a dictionary. */
export function dictionaryMembers(header: string): [string, string][] | null {
  const members: [string, string][] = [];
  let start = 0;
  let depth = 0;
  let quoted = false;
  const take = (end: number) => {
    const member = header.slice(start, end).trim();
    const match = /^([a-z*][a-z0-9_.*-]*)=(.*)$/s.exec(member);
    if (!match) return false;
    members.push([match[1] as string, match[2] as string]);
    return true;
  };
  for (let i = 0; i < header.length; i++) {
    const c = header[i];
    if (quoted) {
      if (c === "\\") i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) {
      if (!take(i)) return null;
      start = i + 1;
    }
  }
  if (quoted || depth !== 0 || !take(header.length)) return null;
  return members;
}

/** The value of the one member called `name`; null when it is absent or there are two. */
export function dictionaryMember(header: string, name: string): string | null {
  const found = (dictionaryMembers(header) ?? []).filter(([member]) => member === name);
  // Two members with one name: another parser may pick the other one, so refuse rather than guess.
  return found.length === 1 ? (found[0] as [string, string])[1] : null;
}

/** `:base64:`, a byte sequence, as its base64 text; null when it is not one. */
export function byteSequence(raw: string): string | null {
  return /^:([A-Za-z0-9+/]+={0,2}):$/.exec(raw)?.[1] ?? null;
}
