"""What results look like to a user: tables, the SQL that ran, plots."""
