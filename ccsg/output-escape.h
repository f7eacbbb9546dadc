/*
 * output-escape.h - names as XML attributes and dot labels: a traced
 * program's names may be any bytes, XML and dot take UTF-8.  Well-formed
 * UTF-8 is kept, a byte that begins no sequence becomes U+FFFD.  Every
 * printer that writes XML or dot uses these (output-graph.c, output.c,
 * output-memory.c, impact/impact-output.c).
 */
#ifndef CCSG_OUTPUT_ESCAPE_H
#define CCSG_OUTPUT_ESCAPE_H

#include <stdio.h>

/* s inside an XML attribute's quotes: <, >, & and " as entities, the
 * other control characters left out.  NULL writes nothing. */
void ccsg_xml_str(FILE *f, const char *s);
/* s inside a dot label's quotes: " and \ escaped.  NULL writes
 * nothing. */
void ccsg_dot_str(FILE *f, const char *s);

#endif
