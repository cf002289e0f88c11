/* scanf %lf stores a double, %f a float */
#include <stdio.h>
int main(void) { double d; float f; int n = scanf("%lf %f", &d, &f); printf("%d %.12f %.12f\n", n, d, f); return 0; }
