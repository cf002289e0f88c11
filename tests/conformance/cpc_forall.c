/* cpc-only: forall creates one process per index and waits for all */
#include <stdio.h>
int squares[8];
int main(void) {
    int i, s = 0;
    forall (i from 0 to 7) squares[i] = i * i;
    for (i = 0; i < 8; i++) s += squares[i];
    printf("%d\n", s);
    return 0;
}
