/* exit(0) ends the program at once */
#include <stdio.h>
#include <stdlib.h>
void finish(void) {
    printf("finishing\n");
    exit(EXIT_SUCCESS);
}
int main(void) {
    printf("start\n");
    finish();
    printf("not reached\n");
    return 0;
}
