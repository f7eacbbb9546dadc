/*
 * output-escape.c - names escaped for XML attributes and dot labels
 * (output-escape.h).
 */
#include <string.h>

#include "output-escape.h"
#include "utf8.h"

/*
 * Copy the well-formed UTF-8 sequence at *s and step past it, or write
 * U+FFFD for a byte that begins none (XML and dot are UTF-8; the names a
 * traced program gave may be any bytes).  0 if *s is ASCII: the caller's.
 */
static int non_ascii(FILE *f, const char **s)
{
	const unsigned char *p = (const unsigned char *)*s;
	size_t n;

	if (*p < 0x80)
		return 0;
	n = utf8_seq_len(p, strnlen(*s, 4));
	if (n)
		fwrite(p, 1, n, f);
	else
		fputs(UTF8_REPLACEMENT, f);
	*s += n ? n : 1;
	return 1;
}

void ccsg_xml_str(FILE *f, const char *s)
{
	while (s && *s) {
		if (non_ascii(f, &s))
			continue;
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, f);
		}
		s++;
	}
}

void ccsg_dot_str(FILE *f, const char *s)
{
	while (s && *s) {
		if (non_ascii(f, &s))
			continue;
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
		s++;
	}
}
