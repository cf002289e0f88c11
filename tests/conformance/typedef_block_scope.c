/* a typedef in a block is visible there only; the name is free outside */
#include <stdio.h>
int T = 5;
int main(void) {
    {
        typedef float T;
        T x = 2.5f;
        printf("%.1f\n", x);
    }
    printf("%d\n", T * 2);
    return 0;
}
