/* [index] designators; an open array takes its size from the highest index */
#include <stdio.h>
int squares[] = {[3] = 9, [1] = 1, 4, [5] = 25};
int main(void) {
    int i, n = sizeof squares / sizeof squares[0];
    int local[6] = {[2] = 7, 8};
    printf("%d:", n);
    for (i = 0; i < n; i++) printf(" %d", squares[i]);
    printf("\n");
    for (i = 0; i < 6; i++) printf("%d ", local[i]);
    printf("\n");
    return 0;
}
