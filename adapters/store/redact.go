package store

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// hidden stands for a password, as url.URL.Redacted writes it.
const hidden = "xxxxx"

// keyValuePassword is a password in a key=value connection string (host=db password='s e'):
// the key (password, sslpassword), and its value, quoted or not (a quote left open runs to the
// end).
var keyValuePassword = regexp.MustCompile(`(?i)(\b\w*password\s*=\s*)('(?:[^'\\]|\\.)*'?|\S*)`)

// isURL says whether a PostgreSQL connection string is a URL, as pgx tells them apart; any other
// is key=value.
func isURL(raw string) bool {
	return strings.HasPrefix(raw, "postgres://") || strings.HasPrefix(raw, "postgresql://")
}

// RedactedURL is a PostgreSQL connection string with every password in it hidden: the user's
// (postgres://tiyin:xxxxx@db/tiyin), a query parameter whose name holds "password"
// (?password=, ?sslpassword=), and in a key=value string (host=db password=…) the value of such
// a key. ok is false for a URL it cannot read; the text is then only "(an unreadable URL)".
func RedactedURL(raw string) (_ string, ok bool) {
	if !isURL(raw) {
		return keyValuePassword.ReplaceAllString(raw, "${1}"+hidden), true
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unreadable URL)", false
	}
	if u.RawQuery != "" {
		params := strings.Split(u.RawQuery, "&")
		for i, p := range params {
			name, _, _ := strings.Cut(p, "=")
			if n, err := url.QueryUnescape(name); err != nil || strings.Contains(strings.ToLower(n), "password") {
				params[i] = name + "=" + hidden
			}
		}
		u.RawQuery = strings.Join(params, "&")
	}
	return u.Redacted(), true
}

// passwords are the passwords a connection string holds, as written and unescaped.
func passwords(raw string) []string {
	var out []string
	if !isURL(raw) {
		for _, m := range keyValuePassword.FindAllStringSubmatch(raw, -1) {
			if v := strings.Trim(m[2], "'"); v != "" {
				out = append(out, m[2], v)
			}
		}
		return out
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	if pw, ok := u.User.Password(); ok && pw != "" {
		out = append(out, pw, url.UserPassword("", pw).String()[1:])
	}
	for _, p := range strings.Split(u.RawQuery, "&") {
		name, value, _ := strings.Cut(p, "=")
		if !strings.Contains(strings.ToLower(name), "password") || value == "" {
			continue
		}
		out = append(out, value)
		if v, err := url.QueryUnescape(value); err == nil {
			out = append(out, v)
		}
	}
	return out
}

// redactURL hides in err's text every password of the connection string raw.
func redactURL(err error, raw string) error {
	text := err.Error()
	for _, pw := range passwords(raw) {
		text = strings.ReplaceAll(text, pw, hidden)
	}
	if text == err.Error() {
		return err
	}
	return fmt.Errorf("%s", text)
}

// redactedURL is the database URL with its passwords hidden, to name it in an error.
func redactedURL(raw string) string {
	s, _ := RedactedURL(raw)
	return s
}
