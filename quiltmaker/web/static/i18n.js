// @ts-check
// The page's words in the reader's language. The server puts them in the page (#page-words: the
// messages of these scripts from the same gettext catalogues as its own words, quiltmaker/i18n.py);
// `t` and `tn` mark them here, and `make messages` extracts them. Placeholders are named, {name},
// so a translation may order them as its language needs.

/** @typedef {Record<string, string | Partial<Record<Intl.LDMLPluralRule, string>>>} Messages */

/** @type {{ language: string, messages: Messages }} */
const words = JSON.parse(document.getElementById("page-words")?.textContent || '{"language": "en", "messages": {}}');

/** The language the page is read in (its <html lang>). */
export const language = words.language;
const plurals = new Intl.PluralRules(language);
const numbers = new Intl.NumberFormat(language);

/**
 * A message in the reader's language, its {placeholders} filled.
 * @param {string} message the English message (the catalogues' id)
 * @param {Record<string, string | number | null | undefined>} [values]
 */
export function t(message, values = {}) {
  const found = words.messages[message];
  return fill(typeof found === "string" ? found : message, values);
}

/**
 * The form of a message for a count (Polish has three: 1 guzik, 2 guziki, 5 guzików), {n} the count.
 * @param {string} singular @param {string} plural the English forms
 * @param {number} n
 * @param {Record<string, string | number | null | undefined>} [values]
 */
export function tn(singular, plural, n, values = {}) {
  const found = words.messages[singular];
  const category = plurals.select(n);
  const form = typeof found === "object" ? found[category] ?? found.other ?? found.many : undefined;
  return fill(form ?? (category === "one" ? singular : plural), { n: numbers.format(n), ...values });
}

/** @param {string} text @param {Record<string, string | number | null | undefined>} values */
function fill(text, values) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name] ?? "") : whole));
}

/** A number as the reader's language writes it (1 234,5 in Polish). @param {number} value @param {Intl.NumberFormatOptions} [options] */
export function number(value, options) {
  return new Intl.NumberFormat(language, options).format(value);
}

/** Wire the page's language switch (templates/language.html): the choice is kept by the server, then the page reloads in it. */
export function wireLanguageSwitch() {
  const select = document.getElementById("language");
  if (!(select instanceof HTMLSelectElement)) return;
  select.addEventListener("change", async () => {
    const response = await fetch("/api/language", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ language: select.value }),
    });
    if (response.ok) location.reload();
  });
}

/** Names as a list in the reader's language ("Gus, Hana, Ada"; "Gus, Hana i Ada"). @param {string[]} names */
export function listed(names) {
  return new Intl.ListFormat(language, { type: "unit", style: "short" }).format(names);
}
