/* printf returns the number of characters written */
#include <stdio.h>
int main(void) {
    int n = printf("hello %d\n", 12345);
    printf("%d\n", n);
    return 0;
}
