// Dates as the viewer reads them: their locale and time zone, not the server's ISO strings.
const FORMAT = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

export const formatDate = (iso: string): string => FORMAT.format(new Date(iso));
