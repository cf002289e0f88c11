/* block scopes shadow outer names */
#include <stdio.h>
int x = 1;
int main(void) {
    int x = 2;
    printf("%d ", x);
    {
        int x = 3;
        printf("%d ", x);
        {
            x = 4;
            int x = 5;
            printf("%d ", x);
        }
        printf("%d ", x);
    }
    printf("%d\n", x);
    return 0;
}
