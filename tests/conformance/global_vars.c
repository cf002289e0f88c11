/* globals: zero-initialised by default, initialised, shared by functions */
#include <stdio.h>
int counter;
int base = 40;
float ratio = 0.5f;
int table[4] = {1, 2, 3, 4};
void bump(void) { counter++; base += table[counter]; }
int main(void) {
    bump();
    bump();
    printf("%d %d %.2f %d\n", counter, base, ratio, table[3]);
    return 0;
}
