// Text from users (names, titles, e-mails, file names, URLs) may carry Unicode's directional
// controls: a version title ending in U+202E (RIGHT-TO-LEFT OVERRIDE) showed the version 9.0.1 beside
// it as 1.0.9. The pages isolate such text by markup: <bdi> where it sits among other text, or
// dir="auto" on an element that holds nothing else. Where no markup can go (a confirm() question, a
// select's option) the text is wrapped in FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE, which is
// the same isolation in characters: the closing one ends whatever the text opened.

export const isolated = (text: string) => `\u2068${text}\u2069`;
