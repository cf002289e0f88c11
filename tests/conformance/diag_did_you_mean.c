/* a misspelt function gets the closest name */
#include <stdio.h>
int main(void) { pritnf("hi\n"); return 0; }
