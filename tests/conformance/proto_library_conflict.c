/* A prototype of a library function that differs from the library's is reported at
   its own line, quoting the library's. */
int strlen(const char *);
int main(void) { return strlen("ab"); }
