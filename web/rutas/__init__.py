"""One APIRouter per resource of the phone pages."""
