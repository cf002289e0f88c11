/* bubble sort of an int array */
#include <stdio.h>
int main(void) {
    int a[8] = {5, 2, 9, 1, 7, 3, 8, 6};
    int i, j, t;
    for (i = 0; i < 8; i++)
        for (j = 0; j + 1 < 8 - i; j++)
            if (a[j] > a[j + 1]) { t = a[j]; a[j] = a[j + 1]; a[j + 1] = t; }
    for (i = 0; i < 8; i++) printf("%d ", a[i]);
    printf("\n");
    return 0;
}
