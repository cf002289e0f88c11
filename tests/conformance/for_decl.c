/* C99 declarations in for headers, scoped to the loop */
#include <stdio.h>
int main(void) {
    int i = 100;
    int s = 0;
    for (int i = 0; i < 4; i++) s += i;
    printf("%d %d\n", s, i);
    return 0;
}
