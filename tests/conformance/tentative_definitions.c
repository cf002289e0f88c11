/* repeated tentative definitions name one object */
#include <stdio.h>
int shared;
int shared;
int shared = 7;
int main(void) {
    shared++;
    printf("%d\n", shared);
    return 0;
}
