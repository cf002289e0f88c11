/* goto leaving nested loops at once */
#include <stdio.h>
int main(void) {
    int i, j;
    for (i = 0; i < 10; i++)
        for (j = 0; j < 10; j++)
            if (i * j == 42) goto found;
    printf("none\n");
    return 0;
found:
    printf("%d %d\n", i, j);
    return 0;
}
