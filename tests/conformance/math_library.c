/* The rest of <math.h> (the float forms `sqrtf`..., expm1, log1p, the inverse
   hyperbolic functions, erf, erfc, tgamma, lgamma, rint, nearbyint, lround, lrint,
   copysign, fdim, fma, remainder, nextafter, logb, ilogb, scalbn, the classification
   macros and the constants), <ctype.h>'s isblank, iscntrl, isgraph, and <string.h>'s
   strcoll and strxfrm. Printed to 10 significant digits: the last bit of a
   transcendental function may differ between C libraries. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    printf("%.10g %.10g %.10g %.10g\n", sqrtf(2.0f), powf(2.0f, 10.0f), fabsf(-1.5f), floorf(-1.5f));
    printf("%.10g %.10g %.10g %.10g %.10g\n", expm1(1e-5), log1p(1e-5), asinh(1.0), acosh(2.0), atanh(0.5));
    printf("%.10g %.10g %.10g %.10g\n", erf(0.5), erfc(0.5), tgamma(5.0), lgamma(10.0));
    printf("%.1f %.1f %.1f %ld %ld %ld\n", rint(2.5), rint(3.5), nearbyint(-2.5), lround(2.5), lrint(2.5), lround(-2.5));
    printf("%.1f %.1f %.1f %.1f\n", copysign(3.0, -0.0), fdim(3.0, 5.0), fdim(5.0, 3.0), fma(2.0, 3.0, 4.0));
    printf("%.1f %.1f %.17g\n", remainder(5.0, 3.0), remainder(7.0, 2.0), nextafter(1.0, 2.0) - 1.0);
    printf("%.1f %d %.1f\n", logb(1000.0), ilogb(0.1), scalbn(1.5, 4));
    printf("%d %d %d %d %d\n", fpclassify(1.0) == FP_NORMAL, fpclassify(0.0) == FP_ZERO,
           fpclassify(INFINITY) == FP_INFINITE, fpclassify(NAN) == FP_NAN, fpclassify(1e-310) == FP_SUBNORMAL);
    printf("%d %d %d %d %d\n", signbit(-0.0) != 0, signbit(1.0) != 0, isnan(NAN) != 0, isinf(-HUGE_VAL), isgreater(2.0, 1.0));
    printf("%.6f %.6f\n", M_PI_2, M_LN2);
    printf("%d %d %d %d\n", isblank('\t') != 0, iscntrl('\n') != 0, isgraph(' ') != 0, isgraph('a') != 0);
    char b[8];
    printf("%d %d %s\n", strcoll("abc", "abd") < 0, (int)strxfrm(b, "xyz", sizeof b), b);
    return 0;
}
