"""The casino table: the dealer and up to six seats from one deck, its rules and bulk rounds."""
