/* Under <stdlib.h>, rand() is C's: an int in [0, RAND_MAX], so rand() % 6 is a die. */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    srand(42);
    int r = rand();
    int ok = 1, sum = 0;
    for (int i = 0; i < 1000; i++) { int d = rand() % 6; if (d < 0 || d > 5) ok = 0; sum += d; }
    printf("%d %d %d %d\n", r >= 0 && r <= RAND_MAX, ok, sum > 2000 && sum < 3000, RAND_MAX);
    return 0;
}
