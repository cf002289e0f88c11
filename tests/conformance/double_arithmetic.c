/* double: unsuffixed constants are double, the usual arithmetic conversions, math.h in double, printf of huge values */
#include <stdio.h>
#include <math.h>
double area(double r) { return M_PI * r * r; }
int main(void) {
    double a = 12.34, b = 56.78;
    float f = 0.1f;
    double d = 0.1;
    double arr[3] = {1.5, 2.25, -3.0};
    int i = 7;
    printf("%f %.10f\n", a + b, a * b);
    printf("%d %d\n", f == 0.1, d == 0.1);
    printf("%.15f %.15f\n", (double)f, d);
    printf("%f %f %.3e\n", area(2.0), sqrt(2.0), 1.0 / 3.0);
    printf("%f %d %f\n", arr[0] + arr[1] + arr[2], (int)(a * 10), i / 2.0);
    d = 1e300;
    d *= 10;
    printf("%f %g\n", -d, d);
    float g = 1.0 / 3.0;
    printf("%.10f %.10f\n", g, 1.0 / 3.0);
    d = 3;
    d++;
    printf("%f %g %g\n", d, pow(2.0, 0.5), fabs(-2.5));
    unsigned u = 4000000000u;
    printf("%.1f %u\n", (double)u, (unsigned)4.0e9);
    return 0;
}
