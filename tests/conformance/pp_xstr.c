/* stringizing after expansion needs two levels */
#include <stdio.h>
#define STR(x) #x
#define XSTR(x) STR(x)
#define SIZE 64
int main(void) {
    printf("%s %s\n", STR(SIZE), XSTR(SIZE));
    return 0;
}
