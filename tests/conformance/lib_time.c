/* cpc-only: <time.h> reads the simulated clock (one time unit a microsecond), so the
   values are the simulation's, not the host's. */
#include <stdio.h>
#include <time.h>
int main(void) {
    clock_t c0 = clock();
    volatile double x = 0;
    for (int i = 0; i < 100; i++) x = x + i;
    clock_t c1 = clock();
    time_t t;
    time_t now = time(&t);
    printf("%d %d %d %.1f\n", c1 > c0, now == t, now == 0, difftime(5, 2));
    printf("%ld\n", (long)CLOCKS_PER_SEC);
    return 0;
}
