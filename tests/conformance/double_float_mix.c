/* float meets double: a float compared with a double constant, sums in each precision */
#include <stdio.h>
int main(void) {
    float f = 0.0f;
    double d = 0.0;
    int i;
    for (i = 0; i < 10; i++) { f += 0.1f; d += 0.1; }
    printf("%.9f %.17f\n", f, d);
    printf("%d %d %d\n", f == 1.0f, d == 1.0, (float)d == 1.0f);
    float h = 0.5;
    printf("%d %d\n", h == 0.5, 0.1f == 0.1);
    printf("%.3f %.3f\n", f * 2.5, (double)(f * 2.5f));
    return 0;
}
