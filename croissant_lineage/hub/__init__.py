"""The Hugging Face Hub: publishing a dataset's lineage."""
