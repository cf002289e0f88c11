/* cpc-only: enumerators as forall bounds */
#include <stdio.h>
enum { FIRST = 2, LAST = 6 };
int cube[8];
int main(void) {
    int i;
    forall (i from FIRST to LAST) cube[i] = i * i * i;
    printf("%d %d %d\n", cube[FIRST], cube[LAST], cube[1]);
    return 0;
}
