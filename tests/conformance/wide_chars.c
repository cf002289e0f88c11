/* Wide characters and strings (L'x', L"…": a wchar_t is an int holding the code
   point), u8 strings, \u escapes (UTF-8 in a plain string) and letters beyond ASCII in
   identifiers (C11 6.4.2.1, 6.4.4.4, 6.4.5). */
#include <stdio.h>
#include <string.h>
#include <wchar.h>

int main(void) {
    wchar_t s[] = L"h\u00e9llo €";
    wchar_t *p;
    for (p = s; *p; p++) printf("%04X ", (unsigned)*p);
    printf("\n%d %d\n", (int)(sizeof s / sizeof s[0]), L'\0');
    const wchar_t *w = L"ab" L"c";
    printf("%d %d %d %d\n", w[0], w[1], w[2], w[3]);
    char plain[] = "\u010dau";
    char utf8[] = u8"čau";
    printf("%d %d\n", (int)strlen(plain), strcmp(plain, utf8));
    int größe = 3;
    double π = 3.25;
    printf("%d %g %d\n", größe, π, L'€');
    return 0;
}
