// The escaper of docs/spec.md §3.4: text escaped as Go's html/template escapes element content,
// byte for byte, so that Eta prints what the Go reference prints (Eta's own escaper writes
// &quot; and leaves + and NUL alone). Vectors: templates/testdata/escape-vectors.json.

const REPLACEMENTS = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&#34;',
  "'": '&#39;',
  '+': '&#43;',
  '\0': '\uFFFD',
}

export function escapeHtml(value) {
  return String(value).replace(/[&<>"'+\0]/g, (c) => REPLACEMENTS[c])
}
