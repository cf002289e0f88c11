/* A NaN prints its sign as glibc prints it: x86-64's 0.0 / 0.0 (and inf - inf, sqrt(-1))
 * is the negative default NaN, "-nan"; negating it, NAN and fabs give "nan". signbit
 * reads the sign of a NaN and of -0.0. */
#include <stdio.h>
#include <math.h>
static double s = NAN;
int main() {
    double z = 0.0, inf = 1e300 * 1e300;
    double n = z / z, p = -n, m = sqrt(-1.0), d = inf - inf;
    float f = z / z, g = NAN;
    printf("[%f] [%+f] [% f] [%08.3f] [%-8e] [%G] [%a] [%A]\n", n, p, p, n, n, p, n, p);
    printf("[%f] [%f] [%f] [%f] [%f] [%f] [%f]\n", m, d, (double)f, (double)g, s, fabs(n), -fabs(n));
    printf("[%f] [%f] [%.17g]\n", n * 2.0, 1.0 + p, (double)(f * 2.0f));
    printf("%d %d %d %d %d %d %d\n", signbit(n), signbit(p), signbit(NAN), signbit(-0.0), signbit(0.0),
           signbit(-2.0f), signbit(inf));
    printf("%d %d %d\n", isnan(n), isnan(NAN), isnan(inf));
    return 0;
}
