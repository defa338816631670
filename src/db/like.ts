/**
 * A LIKE/ILIKE pattern matching `text` anywhere: `%`, `_` and the backslash (PostgreSQL's default
 * escape character) are escaped, so a search for "50%" or "a_b" means those characters.
 */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
