/* strtod and atof: correctly rounded (1e23 is 0x1.52d02c7e14af6p+76), inf, infinity and nan in any
 * case with a sign and nan(chars), the end pointer after what was read (after "inf" of "infin"); scanf's
 * %lf reads inf and nan too. Hexadecimal floats are not read (man cpcc). */
#include <stdio.h>
#include <stdlib.h>
int main() {
    const char *s[] = {"0.1", "1e23", "inf", "-INF", "Infinity", "nan", "-nan", "+inf", "  -1.5e3xyz", "1e", "1e+", ".5", "5.", "-.e1", "infin", "nano", "123456789012345678901234567890", "4.9e-324", "1e400", "-1e-400", "NaN(123)"};
    int i, n;
    double d;
    char *e;
    for (i = 0; i < 21; i++) { d = -7; n = sscanf(s[i], "%lf", &d); double v = strtod(s[i], &e); printf("%s: %a [%s] %d %a %g\n", s[i], v, e, n, d, atof(s[i])); }
    return 0;
}
