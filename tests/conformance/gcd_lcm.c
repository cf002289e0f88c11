/* Euclid's algorithm */
#include <stdio.h>
int gcd(int a, int b) { while (b) { int t = a % b; a = b; b = t; } return a; }
int main(void) {
    printf("%d %d %d\n", gcd(84, 36), gcd(17, 5), 84 / gcd(84, 36) * 36);
    return 0;
}
